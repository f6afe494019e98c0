import CoreMLSpec
import Foundation

/// Predicts with an array feature extractor: the input array's elements (in row-major order) at
/// the listed indexes. A Double output holds the one extracted value, an Int64 output that value
/// truncated toward zero (as coremltools' one-hot encoder pipelines read categories), and a
/// multi-array output every extracted value, in the order listed (one index gives a one-element
/// array).
final class ArrayFeatureExtractorRunner: ModelRunner, @unchecked Sendable {
    private let indexes: [Int]
    private let input: CoreML_Specification_FeatureDescription
    private let output: CoreML_Specification_FeatureDescription
    private let modelName = "the array feature extractor"

    init(specification: CoreML_Specification_Model) throws {
        guard case .arrayFeatureExtractor(let extractor)? = specification.type else { preconditionFailure("not an array feature extractor") }
        guard let input = specification.description_p.input.first, let output = specification.description_p.output.first else {
            throw MLModelError(.generic, "the array feature extractor needs one input and one output")
        }
        self.input = input
        self.output = output
        let limit = input.declaredElementCount
        indexes = try extractor.extractIndex.map { index in
            guard let position = checkedSize(index), limit.map({ position < $0 }) ?? true else {
                throw MLModelError(.generic, "extractIndex \(index) is outside input '\(input.name)'\(limit.map { " of \($0) values" } ?? "")")
            }
            return position
        }
        guard !indexes.isEmpty else { throw MLModelError(.generic, "the array feature extractor has no indexes") }
    }

    func predictions(_ examples: [MLFeatureProvider]) throws -> [MLFeatureProvider] {
        var values = [Double](repeating: 0, count: indexes.count)
        return try examples.enumerated().map { number, example in
            guard let value = try ClassicInputValue.read(input, from: example, number: number, modelName: modelName) else {
                return MLDictionaryFeatureProvider(featureValues: [:])
            }
            let array = try value.multiArray(count: nil)
            for (slot, index) in indexes.enumerated() {
                guard index < array.count else {
                    throw MLModelError(.featureType, "example \(number): input '\(input.name)' has \(array.count) values; the array feature extractor reads index \(index)")
                }
                values[slot] = array[index].doubleValue
            }
            let result = try values.withUnsafeBufferPointer { try ClassicOutputs.value($0, as: output, modelName: modelName) }
            return MLDictionaryFeatureProvider(featureValues: [output.name: result])
        }
    }
}
