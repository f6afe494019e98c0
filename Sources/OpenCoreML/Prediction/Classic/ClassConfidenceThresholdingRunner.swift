import CoreMLSpec
import Foundation

/// Predicts with a class confidence thresholder, as Core ML's format documents it: for an input
/// of C confidences, an output of shape [2, C] whose first row is the confidences and whose second
/// row is 1 for every class (Core ML "simply takes all the classes"; the precision-recall curves
/// are for the app to choose thresholds with).
final class ClassConfidenceThresholdingRunner: ModelRunner, @unchecked Sendable {
    private let input: CoreML_Specification_FeatureDescription
    private let output: CoreML_Specification_FeatureDescription
    private let dataType: MLMultiArrayDataType
    private let memoryLimit: Int
    private let modelName = "the class confidence thresholder"

    init(specification: CoreML_Specification_Model, memoryLimit: Int) throws {
        guard let input = specification.description_p.input.first, let output = specification.description_p.output.first,
              case .multiArrayType(let array)? = output.type.type
        else {
            throw MLModelError(.generic, "the class confidence thresholder needs one input and one multi-array output")
        }
        self.input = input
        self.output = output
        self.memoryLimit = memoryLimit
        dataType = MLMultiArrayDataType(rawValue: array.dataType.rawValue) ?? .double
    }

    func predictions(_ examples: [MLFeatureProvider]) throws -> [MLFeatureProvider] {
        try examples.enumerated().map { number, example in
            guard let value = try ClassicInputValue.read(input, from: example, number: number, modelName: modelName) else {
                return MLDictionaryFeatureProvider(featureValues: [:])
            }
            let array = try value.multiArray(count: input.declaredElementCount)
            let classes = array.count
            guard classes > 0, classes <= memoryLimit / (2 * MemoryLayout<Double>.stride) else {
                throw MLModelError(.featureType, "example \(number): input '\(input.name)' has \(classes) confidences; the output of twice as many must have values and fit the memory limit of \(memoryLimit) bytes")
            }
            var values = [Double](repeating: 1, count: 2 * classes)
            values.withUnsafeMutableBufferPointer { array.copyDoubles(to: $0.baseAddress!) }
            let result = try values.withUnsafeBufferPointer { try MLMultiArray.make(shape: [2, classes], dataType: dataType, doubles: $0.baseAddress!) }
            return MLDictionaryFeatureProvider(featureValues: [output.name: MLFeatureValue(multiArray: result)])
        }
    }
}
