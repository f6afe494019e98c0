import CoreMLSpec
import Foundation

/// Predicts with an imputer: a missing value becomes the imputed value.
///
/// What is missing: an optional input left out (the whole value is imputed); a Double, or an
/// array element, that is NaN or, when the model sets a replace value, equal to it (a NaN
/// replace value matches NaN); an Int64 or String equal to the replace value. Arrays take the
/// imputed value at the element's position (an imputed array) or the one imputed value. For a
/// dictionary, a NaN value takes the imputed dictionary's value for its key when it has one (a
/// key the imputed dictionary lacks keeps its NaN, and absent keys are not added: Core ML's
/// documentation leaves dictionaries unspecified; this is OpenCoreML's reading).
final class ImputerRunner: ModelRunner, @unchecked Sendable {
    private enum Plan {
        case double(imputed: Double, replace: Double?)
        case int64(imputed: Int64, replace: Int64?)
        case string(imputed: String, replace: String?)
        /// One imputed value per element.
        case array(imputed: [Double], replace: Double?)
        case dictionary(imputed: [AnyHashable: NSNumber])
    }

    private let plan: Plan
    private let input: CoreML_Specification_FeatureDescription
    private let output: CoreML_Specification_FeatureDescription
    private let modelName = "the imputer"

    init(specification: CoreML_Specification_Model, memoryLimit: Int) throws {
        guard case .imputer(let imputer)? = specification.type else { preconditionFailure("not an imputer") }
        guard let input = specification.description_p.input.first, let output = specification.description_p.output.first else {
            throw MLModelError(.generic, "the imputer needs one input and one output")
        }
        self.input = input
        self.output = output
        var replaceDouble: Double?
        var replaceInt64: Int64?
        var replaceString: String?
        switch imputer.replaceValue {
        case .replaceDoubleValue(let value)?: replaceDouble = value
        case .replaceInt64Value(let value)?: replaceInt64 = value
        case .replaceStringValue(let value)?: replaceString = value
        case nil: break
        }
        let count = input.declaredElementCount
        func arrayCount() throws -> Int {
            guard let count, count <= memoryLimit / MemoryLayout<Double>.stride else {
                throw MLModelError(.generic, "input '\(input.name)' of the imputer must declare a shape within the memory limit of \(memoryLimit) bytes")
            }
            return count
        }
        switch (imputer.imputedValue, input.type.type) {
        case (.imputedDoubleValue(let value)?, .doubleType?):
            plan = .double(imputed: value, replace: replaceDouble)
        case (.imputedDoubleValue(let value)?, .multiArrayType?):
            plan = .array(imputed: [Double](repeating: value, count: try arrayCount()), replace: replaceDouble)
        case (.imputedInt64Value(let value)?, .int64Type?):
            plan = .int64(imputed: value, replace: replaceInt64)
        case (.imputedStringValue(let value)?, .stringType?):
            plan = .string(imputed: value, replace: replaceString)
        case (.imputedDoubleArray(let values)?, .multiArrayType?) where values.vector.count == count:
            plan = .array(imputed: values.vector, replace: replaceDouble)
        case (.imputedInt64Array(let values)?, .multiArrayType?) where values.vector.count == count:
            plan = .array(imputed: values.vector.map(Double.init), replace: replaceInt64.map(Double.init))
        case (.imputedStringDictionary(let map)?, .dictionaryType?):
            plan = .dictionary(imputed: Dictionary(uniqueKeysWithValues: map.map.map { (AnyHashable($0.key), NSNumber(value: $0.value)) }))
        case (.imputedInt64Dictionary(let map)?, .dictionaryType?):
            plan = .dictionary(imputed: Dictionary(uniqueKeysWithValues: map.map.map { (AnyHashable($0.key), NSNumber(value: $0.value)) }))
        default:
            throw MLModelError(.featureType, "the imputer's imputed value does not fit input '\(input.name)' (\(input.type.summary))")
        }
    }

    func predictions(_ examples: [MLFeatureProvider]) throws -> [MLFeatureProvider] {
        try examples.enumerated().map { number, example in
            let value = try ClassicInputValue.read(input, from: example, number: number, modelName: modelName)
            return MLDictionaryFeatureProvider(featureValues: [output.name: try impute(value)])
        }
    }

    private func impute(_ value: ClassicInputValue?) throws -> MLFeatureValue {
        switch plan {
        case .double(let imputed, let replace):
            guard let number = try value?.double, !Self.isMissing(number, replace: replace) else { return MLFeatureValue(double: imputed) }
            return MLFeatureValue(double: number)
        case .int64(let imputed, let replace):
            guard let number = try value?.int64, number != replace else { return MLFeatureValue(int64: imputed) }
            return MLFeatureValue(int64: number)
        case .string(let imputed, let replace):
            guard let text = try value?.string, text != replace else { return MLFeatureValue(string: imputed) }
            return MLFeatureValue(string: text)
        case .array(let imputed, let replace):
            var values = imputed
            if let array = try value?.multiArray(count: imputed.count), !values.isEmpty {
                values.withUnsafeMutableBufferPointer { array.copyDoubles(to: $0.baseAddress!) }
                for index in values.indices where Self.isMissing(values[index], replace: replace) { values[index] = imputed[index] }
            }
            return try values.withUnsafeBufferPointer { try ClassicOutputs.value($0, as: output, modelName: modelName) }
        case .dictionary(let imputed):
            guard var dictionary = try value?.dictionary else { return try MLFeatureValue(dictionary: imputed) }
            for (key, number) in dictionary where number.doubleValue.isNaN {
                if let replacement = imputed[key] { dictionary[key] = replacement }
            }
            return try MLFeatureValue(dictionary: dictionary)
        }
    }

    private static func isMissing(_ value: Double, replace: Double?) -> Bool {
        guard let replace, !replace.isNaN else { return value.isNaN }
        return value == replace
    }
}
