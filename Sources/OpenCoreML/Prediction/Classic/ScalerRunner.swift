import CoreMLSpec
import Foundation

/// Predicts with a scaler: y = (x + shift) × scale, element by element; one shift or scale value
/// applies to every element, none means shift 0 and scale 1. An Int64 input is scaled as a Double;
/// an Int64 output must be a whole number, or the prediction fails (Core ML: "if that cast is
/// lossy, then an error is generated").
final class ScalerRunner: ModelRunner, @unchecked Sendable {
    private let shift: [Double]
    private let scale: [Double]
    private let count: Int
    private let input: CoreML_Specification_FeatureDescription
    private let output: CoreML_Specification_FeatureDescription
    private let modelName = "the scaler"

    init(specification: CoreML_Specification_Model, memoryLimit: Int) throws {
        guard case .scaler(let scaler)? = specification.type else { preconditionFailure("not a scaler") }
        guard let input = specification.description_p.input.first, let output = specification.description_p.output.first else {
            throw MLModelError(.generic, "the scaler needs one input and one output")
        }
        self.input = input
        self.output = output
        if case .multiArrayType? = input.type.type {
            guard let count = input.declaredElementCount, count <= memoryLimit / MemoryLayout<Double>.stride else {
                throw MLModelError(.featureType, "input '\(input.name)' of the scaler must declare a shape within the memory limit of \(memoryLimit) bytes")
            }
            self.count = count
        } else {
            count = 1
        }
        for (name, list) in [("shiftValue", scaler.shiftValue), ("scaleValue", scaler.scaleValue)] where list.count > 1 && list.count != count {
            throw MLModelError(.generic, "the scaler's \(name) has \(list.count) values for an input of \(count)")
        }
        shift = scaler.shiftValue
        scale = scaler.scaleValue
    }

    func predictions(_ examples: [MLFeatureProvider]) throws -> [MLFeatureProvider] {
        var values = [Double](repeating: 0, count: count)
        return try examples.enumerated().map { number, example in
            // A missing optional input scales NaN (a missing value).
            let value = try ClassicInputValue.read(input, from: example, number: number, modelName: modelName)
            if case .multiArrayType? = input.type.type {
                if let array = try value?.multiArray(count: count) {
                    values.withUnsafeMutableBufferPointer { array.copyDoubles(to: $0.baseAddress!) }
                } else {
                    values.withUnsafeMutableBufferPointer { $0.update(repeating: .nan) }
                }
            } else {
                values[0] = try value?.double ?? .nan
            }
            for index in values.indices {
                let shiftBy = shift.isEmpty ? 0 : shift[shift.count == 1 ? 0 : index]
                let scaleBy = scale.isEmpty ? 1 : scale[scale.count == 1 ? 0 : index]
                values[index] = (values[index] + shiftBy) * scaleBy
            }
            if case .int64Type? = output.type.type {
                guard let whole = Int64(exactly: values[0]) else {
                    throw MLModelError(.featureType, "example \(number): the scaler gives \(values[0]), which output '\(output.name)' (Int64) cannot hold exactly")
                }
                return MLDictionaryFeatureProvider(featureValues: [output.name: MLFeatureValue(int64: whole)])
            }
            let result = try values.withUnsafeBufferPointer { try ClassicOutputs.value($0, as: output, modelName: modelName) }
            return MLDictionaryFeatureProvider(featureValues: [output.name: result])
        }
    }
}
