import CoreMLSpec
import Foundation
import _OpenCoreMLEngine

/// Predicts with a Bayesian probit regressor (see ``BayesianProbitRegression``).
///
/// The regression input is a multi-array: a vector, whose element i is the value of feature i, or
/// an [n, 2] matrix of (feature id, feature value) rows; ids and values must be whole numbers from
/// 0 to 2³² − 1. The optimism (default 0), sampling scale (default 1) and sampling truncation
/// (default: none) inputs are numbers or one-element multi-arrays, and may be missing.
///
/// Outputs, as the model names them: the score's mean and variance, the pessimistic probability
/// Φ(mean + optimism·√variance) and a sampled probability Φ(mean + scale·√variance·z), z a
/// standard normal draw truncated to ±truncation. The draws come from SplitMix64 seeded with 0
/// when the model loads, one draw per example in order, so a freshly loaded model repeats its
/// sequence of samples (Core ML's generator and seeding are not documented).
final class BayesianProbitRegressorRunner: ModelRunner, @unchecked Sendable {
    private let regression: BayesianProbitRegression
    private let parameters: CoreML_Specification_BayesianProbitRegressor
    private let outputs: [CoreML_Specification_FeatureDescription]
    private let generator = LockedValue(SplitMix64(seed: 0))
    private static let modelName = "the Bayesian probit regressor"

    init(specification: CoreML_Specification_Model, memoryLimit: Int) throws {
        guard case .bayesianProbitRegressor(let probit)? = specification.type else { preconditionFailure("not a Bayesian probit regressor") }
        let weightCount = probit.features.reduce(0) { $0 &+ $1.weights.count }
        try ClassicBatches.checkModelSize(doubles: weightCount &* 4, memoryLimit: memoryLimit, modelName: Self.modelName)
        let bias = probit.hasBias ? BayesianProbitRegression.Gaussian(mean: probit.bias.mean, precision: probit.bias.precision) : nil
        var weights: [(featureID: UInt32, featureValue: UInt32, weight: BayesianProbitRegression.Gaussian)] = []
        weights.reserveCapacity(weightCount)
        for feature in probit.features {
            for weight in feature.weights {
                weights.append((feature.featureID, weight.featureValue,
                                .init(mean: weight.featureWeight.mean, precision: weight.featureWeight.precision)))
            }
        }
        do { regression = try BayesianProbitRegression(bias: bias, weights: weights) } catch { throw MLModelError(.generic, "\(Self.modelName): \(error.message)") }
        parameters = probit
        outputs = specification.description_p.output
    }

    func predictions(_ examples: [MLFeatureProvider]) throws -> [MLFeatureProvider] {
        try examples.enumerated().map { number, example in
            let pairs = try featurePairs(example, number: number)
            let (mean, variance) = regression.score(pairs)
            var features: [String: MLFeatureValue] = [:]
            for output in outputs {
                var value: Double
                switch output.name {
                case parameters.meanOutputFeatureName:
                    value = mean
                case parameters.varianceOutputFeatureName:
                    value = variance
                case parameters.pessimisticProbabilityOutputFeatureName:
                    let optimism = try scalar(example, parameters.optimismInputFeatureName, default: 0, example: number)
                    value = BayesianProbitRegression.pessimisticProbability(mean: mean, variance: variance, optimism: optimism)
                case parameters.sampledProbabilityOutputFeatureName:
                    let scale = try scalar(example, parameters.samplingScaleInputFeatureName, default: 1, example: number)
                    let truncation = try scalar(example, parameters.samplingTruncationInputFeatureName, default: .infinity, example: number)
                    let uniform = generator.withLock { Double($0.next() >> 11) * 0x1.0p-53 }  // 53 random bits in [0, 1)
                    value = BayesianProbitRegression.sampledProbability(mean: mean, variance: variance, scale: scale,
                                                                        truncation: truncation, uniform: uniform)
                default:
                    throw MLModelError(.generic, "\(Self.modelName) computes no output named '\(output.name)'")
                }
                features[output.name] = try ClassicOutputs.value(value, as: output, modelName: Self.modelName)
            }
            return MLDictionaryFeatureProvider(featureValues: features)
        }
    }

    /// The example's (feature id, feature value) pairs.
    private func featurePairs(_ example: MLFeatureProvider, number: Int) throws -> [(UInt32, UInt32)] {
        let name = parameters.regressionInputFeatureName
        guard let array = example.featureValue(for: name)?.multiArrayValue else {
            throw MLModelError(.featureType, "example \(number): input '\(name)' of \(Self.modelName) must be a multi-array")
        }
        var values = [Double](repeating: 0, count: array.count)
        values.withUnsafeMutableBufferPointer { array.copyDoubles(to: $0.baseAddress!) }
        func whole(_ value: Double) throws -> UInt32 {
            guard let whole = UInt32(exactly: value) else {
                throw MLModelError(.featureType, "example \(number): input '\(name)' holds \(value); feature ids and values must be whole numbers from 0 to \(UInt32.max)")
            }
            return whole
        }
        let shape = array.shape.map(\.intValue)
        if shape.count == 2 && shape[1] == 2 {
            return try stride(from: 0, to: values.count, by: 2).map { (try whole(values[$0]), try whole(values[$0 + 1])) }
        }
        guard shape.count == 1 else {
            throw MLModelError(.featureType, "example \(number): input '\(name)' has shape \(shape); \(Self.modelName) takes a vector or an [n, 2] matrix")
        }
        guard values.count <= Int(UInt32.max) + 1 else {
            throw MLModelError(.featureType, "example \(number): input '\(name)' has more feature ids than 32 bits count")
        }
        return try values.enumerated().map { (UInt32($0.offset), try whole($0.element)) }
    }

    /// The number input `name` (a number or one-element multi-array), or `fallback` when the model
    /// names no such input or the example leaves it out.
    private func scalar(_ example: MLFeatureProvider, _ name: String, default fallback: Double, example number: Int) throws -> Double {
        guard !name.isEmpty, let value = example.featureValue(for: name), !value.isUndefined else { return fallback }
        switch value.type {
        case .double: return value.doubleValue
        case .int64: return Double(value.int64Value)
        case .multiArray where value.multiArrayValue?.count == 1:
            var result = 0.0
            value.multiArrayValue!.copyDoubles(to: &result)
            return result
        default:
            throw MLModelError(.featureType, "example \(number): input '\(name)' of \(Self.modelName) must be a number")
        }
    }
}
