import CoreMLSpec
import Foundation

/// Predicts with an identity model: output *i* is input *i*'s value, unchanged, under the output's
/// name. A missing optional input leaves its output out. A model with more outputs than inputs is
/// refused at load (Core ML's validator takes every identity model).
final class IdentityRunner: ModelRunner, @unchecked Sendable {
    private let pairs: [(input: CoreML_Specification_FeatureDescription, output: String)]

    init(specification: CoreML_Specification_Model) throws {
        let description = specification.description_p
        guard description.output.count <= description.input.count else {
            throw MLModelError(.generic, "the identity model has \(description.output.count) outputs but only \(description.input.count) inputs to pass through")
        }
        pairs = zip(description.input, description.output).map { ($0, $1.name) }
    }

    func predictions(_ examples: [MLFeatureProvider]) throws -> [MLFeatureProvider] {
        try examples.enumerated().map { number, example in
            var values: [String: MLFeatureValue] = [:]
            for (input, output) in pairs {
                if let value = try ClassicInputValue.read(input, from: example, number: number, modelName: "the identity model") {
                    values[output] = value.value
                }
            }
            return MLDictionaryFeatureProvider(featureValues: values)
        }
    }
}
