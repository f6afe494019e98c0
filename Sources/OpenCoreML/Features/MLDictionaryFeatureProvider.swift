import Foundation

/// Feature values held in a dictionary.
///
/// ```swift
/// let example = try MLDictionaryFeatureProvider(dictionary: ["image": imageArray, "output_true": 3])
/// ```
public final class MLDictionaryFeatureProvider: MLFeatureProvider, @unchecked Sendable, Sequence {
    /// The feature values, by feature name.
    public let dictionary: [String: MLFeatureValue]

    /// Accepts `MLFeatureValue`s and the plain values they wrap: integers, floating-point numbers,
    /// `NSNumber`, `String`, `MLMultiArray` and score dictionaries.
    ///
    /// - Parameter dictionary: The values by feature name.
    /// - Throws: An ``MLModelError`` with ``MLModelError/Code/featureType`` naming the feature whose value
    ///   cannot be a feature value.
    public init(dictionary: [String: Any]) throws {
        var values: [String: MLFeatureValue] = [:]
        for (name, value) in dictionary {
            values[name] = try Self.featureValue(value, name: name)
        }
        self.dictionary = values
    }

    /// Wraps feature values directly (an OpenCoreML addition; nothing to convert, nothing thrown).
    public init(featureValues: [String: MLFeatureValue]) {
        dictionary = featureValues
    }

    /// The names of the features the provider holds.
    public var featureNames: Set<String> { Set(dictionary.keys) }

    /// The value of the feature named `featureName`, or nil if the provider has none.
    public func featureValue(for featureName: String) -> MLFeatureValue? { dictionary[featureName] }

    /// The value of the feature named `featureName`, or nil if the provider has none.
    public subscript(featureName: String) -> MLFeatureValue? { dictionary[featureName] }

    public func makeIterator() -> Dictionary<String, MLFeatureValue>.Iterator { dictionary.makeIterator() }

    static func featureValue(_ value: Any, name: String) throws -> MLFeatureValue {
        switch value {
        case let value as MLFeatureValue: return value
        case let value as MLMultiArray: return MLFeatureValue(multiArray: value)
        case let value as PixelBuffer: return MLFeatureValue(pixelBuffer: value)
        case let value as String: return MLFeatureValue(string: value)
        case let value as Int: return MLFeatureValue(int64: Int64(value))
        case let value as Int64: return MLFeatureValue(int64: value)
        case let value as Int32: return MLFeatureValue(int64: Int64(value))
        case let value as Double: return MLFeatureValue(double: value)
        case let value as Float: return MLFeatureValue(double: Double(value))
        case let value as NSNumber:
            let isFloatingPoint = ["f", "d"].contains(String(cString: value.objCType))
            return isFloatingPoint ? MLFeatureValue(double: value.doubleValue) : MLFeatureValue(int64: value.int64Value)
        case let value as [AnyHashable: NSNumber]: return try MLFeatureValue(dictionary: value)
        case let value as [String: Double]:
            return try MLFeatureValue(dictionary: Dictionary(uniqueKeysWithValues: value.map { (AnyHashable($0.key), NSNumber(value: $0.value)) }))
        default:
            throw MLModelError(.featureType, "feature '\(name)': a \(type(of: value)) cannot be a feature value")
        }
    }
}
