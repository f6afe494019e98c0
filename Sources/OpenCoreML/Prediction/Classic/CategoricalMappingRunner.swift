import CoreMLSpec
import Foundation

/// Predicts with a categorical mapping: a String to its Int64, or an Int64 to its String; an input
/// the map lacks gives the model's value on unknown, or an error when it has none. Sequence inputs
/// are refused at load (OpenCoreML's feature values have no sequences).
final class CategoricalMappingRunner: ModelRunner, @unchecked Sendable {
    private enum Mapping {
        case stringToInt64([String: Int64], unknown: Int64?)
        case int64ToString([Int64: String], unknown: String?)
    }

    private let mapping: Mapping
    private let input: CoreML_Specification_FeatureDescription
    private let output: CoreML_Specification_FeatureDescription
    private let modelName = "the categorical mapping"

    init(specification: CoreML_Specification_Model) throws {
        guard case .categoricalMapping(let categorical)? = specification.type else { preconditionFailure("not a categorical mapping") }
        guard let input = specification.description_p.input.first, let output = specification.description_p.output.first else {
            throw MLModelError(.generic, "the categorical mapping needs one input and one output")
        }
        if case .sequenceType? = input.type.type {
            throw MLModelError(.featureType, "input '\(input.name)' of the categorical mapping is a sequence; OpenCoreML does not support sequence features")
        }
        self.input = input
        self.output = output
        switch categorical.mappingType {
        case .stringToInt64Map(let map)?:
            var unknown: Int64?
            if case .int64Value(let value)? = categorical.valueOnUnknown { unknown = value }
            mapping = .stringToInt64(map.map, unknown: unknown)
        case .int64ToStringMap(let map)?:
            var unknown: String?
            if case .strValue(let value)? = categorical.valueOnUnknown { unknown = value }
            mapping = .int64ToString(map.map, unknown: unknown)
        case nil:
            throw MLModelError(.generic, "the categorical mapping has no map")
        }
    }

    func predictions(_ examples: [MLFeatureProvider]) throws -> [MLFeatureProvider] {
        try examples.enumerated().map { number, example in
            let value = try ClassicInputValue.read(input, from: example, number: number, modelName: modelName)
            let result: MLFeatureValue
            switch mapping {
            case .stringToInt64(let map, let unknown):
                let key = try value?.string
                guard let mapped = key.flatMap({ map[$0] }) ?? unknown else { throw unknownError(key.map { "'\($0)'" }, number: number) }
                result = MLFeatureValue(int64: mapped)
            case .int64ToString(let map, let unknown):
                let key = try value?.int64
                guard let mapped = key.flatMap({ map[$0] }) ?? unknown else { throw unknownError(key.map { "\($0)" }, number: number) }
                result = MLFeatureValue(string: mapped)
            }
            return MLDictionaryFeatureProvider(featureValues: [output.name: result])
        }
    }

    private func unknownError(_ shown: String?, number: Int) -> MLModelError {
        MLModelError(.featureType, "example \(number): input '\(input.name)' is \(shown ?? "missing"), which the categorical mapping does not map, and it has no value for unknown inputs")
    }
}
