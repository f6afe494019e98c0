import Foundation

/// One value of a model's input or output: an integer, a double, a string, a multi-array, a
/// dictionary of scores, an image (a pixel buffer), a sequence, or undefined (a missing optional
/// input).
public final class MLFeatureValue: @unchecked Sendable, CustomStringConvertible {
    private enum Storage {
        case int64(Int64)
        case double(Double)
        case string(String)
        case multiArray(MLMultiArray)
        case dictionary([AnyHashable: NSNumber])
        case image(PixelBuffer)
        case sequence(MLSequence)
        case undefined(MLFeatureType)
    }

    private let storage: Storage

    /// An integer value, such as an integer class label.
    public init(int64 value: Int64) { storage = .int64(value) }
    /// A floating-point number.
    public init(double value: Double) { storage = .double(value) }
    /// A string value, such as a class label.
    public init(string value: String) { storage = .string(value) }
    /// A multidimensional array; the value refers to the array, it does not copy it.
    public init(multiArray value: MLMultiArray) { storage = .multiArray(value) }
    /// An image; on platforms without Core Video `PixelBuffer` is also called `CVPixelBuffer`.
    public init(pixelBuffer value: PixelBuffer) { storage = .image(value) }
    /// A missing value of the given type, for optional inputs.
    public init(undefined type: MLFeatureType) { storage = .undefined(type) }
    /// A sequence of strings or integers.
    public init(sequence value: MLSequence) { storage = .sequence(value) }

    /// A classifier's probabilities: `keys` (all `String` or all `Int64`, distinct, as
    /// `ClassLabelSet.keys` makes them) with one probability each, built without the checks and
    /// key conversions of ``init(dictionary:)`` (for 1,000 classes these cost a millisecond).
    init(classProbabilities probabilities: UnsafePointer<Float>, keys: [AnyHashable]) {
        var dictionary = [AnyHashable: NSNumber](minimumCapacity: keys.count)
        for (index, key) in keys.enumerated() { dictionary[key] = NSNumber(value: Double(probabilities[index])) }
        storage = .dictionary(dictionary)
    }

    /// ``init(classProbabilities:keys:)`` for double probabilities.
    init(classProbabilities probabilities: UnsafeBufferPointer<Double>, keys: [AnyHashable]) {
        var dictionary = [AnyHashable: NSNumber](minimumCapacity: keys.count)
        for (key, probability) in zip(keys, probabilities) { dictionary[key] = NSNumber(value: probability) }
        storage = .dictionary(dictionary)
    }

    /// A dictionary of scores; keys must all be `String` or all integers (stored as `Int64`).
    public init(dictionary value: [AnyHashable: NSNumber]) throws {
        var converted: [AnyHashable: NSNumber] = [:]
        var sawString = false
        var sawInteger = false
        for (key, number) in value {
            switch key.base {
            case let text as String:
                sawString = true
                converted[AnyHashable(text)] = number
            case let integer as any BinaryInteger:
                guard let key = Int64(exactly: integer) else {
                    throw MLModelError(.featureType, "dictionary key \(integer) does not fit in Int64")
                }
                sawInteger = true
                converted[AnyHashable(key)] = number
            case let number as NSNumber:
                sawInteger = true
                converted[AnyHashable(number.int64Value)] = number
            default:
                throw MLModelError(.featureType, "dictionary keys must be String or Int64, got \(Swift.type(of: key.base))")
            }
        }
        guard !(sawString && sawInteger) else {
            throw MLModelError(.featureType, "dictionary keys must all be String or all be Int64, not both")
        }
        storage = .dictionary(converted)
    }

    /// The kind of value held (for an undefined value, the type it stands for).
    public var type: MLFeatureType {
        switch storage {
        case .int64: return .int64
        case .double: return .double
        case .string: return .string
        case .multiArray: return .multiArray
        case .dictionary: return .dictionary
        case .image: return .image
        case .sequence: return .sequence
        case .undefined(let type): return type
        }
    }

    /// Whether this is a missing value made with ``init(undefined:)``.
    public var isUndefined: Bool {
        if case .undefined = storage { return true }
        return false
    }

    /// The value as an integer; 0 for other types (as in Core ML).
    public var int64Value: Int64 {
        switch storage {
        case .int64(let value): return value
        case .double(let value): return Int64(exactly: value.rounded(.towardZero)) ?? 0
        default: return 0
        }
    }

    /// The value as a double; 0 for other types (as in Core ML).
    public var doubleValue: Double {
        switch storage {
        case .double(let value): return value
        case .int64(let value): return Double(value)
        default: return 0
        }
    }

    /// The value as text; empty for other types (as in Core ML).
    public var stringValue: String {
        if case .string(let value) = storage { return value }
        return ""
    }

    /// The array, for multi-array values; nil for other types.
    public var multiArrayValue: MLMultiArray? {
        if case .multiArray(let value) = storage { return value }
        return nil
    }

    /// The image, for image values.
    public var imageBufferValue: PixelBuffer? {
        if case .image(let value) = storage { return value }
        return nil
    }

    /// The sequence, for sequence values; nil for other types.
    public var sequenceValue: MLSequence? {
        if case .sequence(let value) = storage { return value }
        return nil
    }

    /// The scores; empty for other types (as in Core ML).
    public var dictionaryValue: [AnyHashable: NSNumber] {
        if case .dictionary(let value) = storage { return value }
        return [:]
    }

    /// Whether two values are of the same type and equal (multi-arrays compare element by element).
    public func isEqual(to other: MLFeatureValue) -> Bool {
        switch (storage, other.storage) {
        case (.int64(let a), .int64(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.dictionary(let a), .dictionary(let b)): return a == b
        case (.undefined(let a), .undefined(let b)): return a == b
        case (.sequence(let a), .sequence(let b)): return a.isEqual(to: b)
        case (.multiArray(let a), .multiArray(let b)):
            return a.shape == b.shape && (0..<a.count).allSatisfy { a[$0].doubleValue == b[$0].doubleValue }
        case (.image(let a), .image(let b)):
            return a === b || (a.width == b.width && a.height == b.height && a.pixelFormatType == b.pixelFormatType
                && (0..<a.height).allSatisfy { row in
                    memcmp(a.baseAddress + row * a.bytesPerRow, b.baseAddress + row * b.bytesPerRow, a.bytesPerRow) == 0
                })
        default: return false
        }
    }

    /// The value as text: a number, a quoted string, an array's summary, a dictionary or an image size.
    public var description: String {
        switch storage {
        case .int64(let value): return "\(value)"
        case .double(let value): return "\(value)"
        case .string(let value): return "\"\(value)\""
        case .multiArray(let value): return value.description
        case .dictionary(let value): return "\(value)"
        case .image(let value): return "image \(value)"
        case .sequence(let value): return "sequence \(value)"
        case .undefined(let type): return "undefined \(type)"
        }
    }
}
