import CoreMLSpec
import Foundation

/// One input of a classic transformer (one-hot encoder, imputer, scaler, …) read from one example,
/// with errors that name the example, the input and the model.
struct ClassicInputValue {
    let value: MLFeatureValue
    let name: String
    let example: Int
    let modelName: String

    /// The value of `feature` in `example` (number `number`); nil when it is missing (absent or
    /// undefined) and the feature is optional, an error naming it when it is required.
    static func read(_ feature: CoreML_Specification_FeatureDescription, from example: MLFeatureProvider, number: Int,
                     modelName: String) throws -> ClassicInputValue? {
        guard let value = example.featureValue(for: feature.name), !value.isUndefined else {
            guard feature.type.isOptional else {
                throw MLModelError(.featureType, "example \(number): input '\(feature.name)' of \(modelName) is missing")
            }
            return nil
        }
        return ClassicInputValue(value: value, name: feature.name, example: number, modelName: modelName)
    }

    func wrongType(_ expected: String) -> MLModelError {
        MLModelError(.featureType, "example \(example): input '\(name)' is \(value.type), but \(modelName) takes \(expected) here")
    }

    var string: String {
        get throws {
            guard value.type == .string else { throw wrongType("a String") }
            return value.stringValue
        }
    }

    /// An Int64, or a Double holding a whole number.
    var int64: Int64 {
        get throws {
            switch value.type {
            case .int64:
                return value.int64Value
            case .double:
                guard let whole = Int64(exactly: value.doubleValue) else { throw wrongType("an Int64 (\(value.doubleValue) is not a whole number)") }
                return whole
            default:
                throw wrongType("an Int64")
            }
        }
    }

    /// A Double, or an Int64 as a Double.
    var double: Double {
        get throws {
            guard value.type == .double || value.type == .int64 else { throw wrongType("a number") }
            return value.doubleValue
        }
    }

    var dictionary: [AnyHashable: NSNumber] {
        get throws {
            guard value.type == .dictionary else { throw wrongType("a dictionary") }
            return value.dictionaryValue
        }
    }

    /// A multi-array holding `count` elements when a count is given.
    func multiArray(count: Int?) throws -> MLMultiArray {
        guard let array = value.multiArrayValue else {
            throw wrongType(count.map { "a multi-array of \($0) values" } ?? "a multi-array")
        }
        if let count, array.count != count {
            throw MLModelError(.featureType, "example \(example): input '\(name)' has \(array.count) values; \(modelName) takes \(count)")
        }
        return array
    }
}

extension CoreML_Specification_FeatureDescription {
    /// The number of elements of a multi-array feature's declared shape; nil for other features, an
    /// array without a shape, or a shape too large to count.
    var declaredElementCount: Int? {
        guard case .multiArrayType(let array)? = type.type, !array.shape.isEmpty else { return nil }
        return checkedProduct(array.shape)
    }
}
