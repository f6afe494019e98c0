import CoreMLSpec
import Foundation

/// Predicts with a normalizer: the input divided by its norm, L1 (Σ|x|), L2 (√Σx²) or LMax.
///
/// LMax is max |xᵢ|, the L∞ norm, as scikit-learn's `norm="max"` (which coremltools' converter maps
/// to it) computes it; Core ML's documentation writes max(xᵢ), which is the same for inputs
/// without negative values. An input whose norm is 0 passes through unchanged, as in
/// scikit-learn. The L2 norm is computed scaled by the largest magnitude, so very large or small
/// values neither overflow nor underflow.
final class NormalizerRunner: ModelRunner, @unchecked Sendable {
    private let norm: CoreML_Specification_Normalizer.NormType
    private let input: CoreML_Specification_FeatureDescription
    private let output: CoreML_Specification_FeatureDescription
    private let modelName = "the normalizer"

    init(specification: CoreML_Specification_Model) throws {
        guard case .normalizer(let normalizer)? = specification.type else { preconditionFailure("not a normalizer") }
        guard let input = specification.description_p.input.first, let output = specification.description_p.output.first else {
            throw MLModelError(.generic, "the normalizer needs one input and one output")
        }
        self.input = input
        self.output = output
        norm = normalizer.normType
    }

    func predictions(_ examples: [MLFeatureProvider]) throws -> [MLFeatureProvider] {
        let declared = input.declaredElementCount
        return try examples.enumerated().map { number, example in
            guard let value = try ClassicInputValue.read(input, from: example, number: number, modelName: modelName) else {
                return MLDictionaryFeatureProvider(featureValues: [:])
            }
            let array = try value.multiArray(count: declared)
            var values = [Double](repeating: 0, count: array.count)
            guard !values.isEmpty else { throw value.wrongType("a multi-array with values") }
            values.withUnsafeMutableBufferPointer { array.copyDoubles(to: $0.baseAddress!) }
            let divisor = Self.norm(of: values, norm)
            if divisor != 0 {
                for index in values.indices { values[index] /= divisor }
            }
            let result = try values.withUnsafeBufferPointer { try ClassicOutputs.value($0, as: output, modelName: modelName) }
            return MLDictionaryFeatureProvider(featureValues: [output.name: result])
        }
    }

    static func norm(of values: [Double], _ norm: CoreML_Specification_Normalizer.NormType) -> Double {
        switch norm {
        case .l1:
            return values.reduce(0) { $0 + abs($1) }
        case .l2:
            let largest = values.reduce(0) { max($0, abs($1)) }
            guard largest > 0, largest.isFinite else { return largest }
            return largest * values.reduce(0) { $0 + ($1 / largest) * ($1 / largest) }.squareRoot()
        default:
            return values.reduce(0) { max($0, abs($1)) }
        }
    }
}
