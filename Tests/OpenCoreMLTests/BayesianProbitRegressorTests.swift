import CoreMLSpec
import Foundation
import OpenCoreML
import Testing
import _OpenCoreMLTestSupport

/// Bayesian probit regressors worked by hand.
///
/// The model: bias N(0.1, 1/4); feature 0 has weights N(0.5, 1/2) for value 1 and N(−0.3, 1/1)
/// for value 2; feature 2 has N(0.2, 1/10) for value 0 (precision is 1 / variance).
///
/// - x = [1, 7, 0] (vector: feature i has value x[i]) selects the bias, (0, 1) and (2, 0) — feature
///   1 has no weight for value 7 — so the score has mean 0.1 + 0.5 + 0.2 = 0.8 and variance
///   0.25 + 0.5 + 0.1 = 0.85.
/// - rows [[0, 2], [2, 0]] (feature id, value) select the bias, (0, 2) and (2, 0): mean
///   0.1 − 0.3 + 0.2 = 0, variance 0.25 + 1 + 0.1 = 1.35.
///
/// Probabilities are Φ(mean + optimism·√variance), and Φ(mean + scale·√variance·z) for z drawn
/// from the standard normal truncated to ±truncation: z = Φ⁻¹(Φ(−t) + (Φ(t) − Φ(−t))·u), u the
/// 53 high bits of SplitMix64(seed: 0)'s draws over 2⁵³ (0.8833108082136426, then
/// 0.43152799704850997). Numbers from scipy:
/// ```python
/// norm.cdf(0.8 - np.sqrt(0.85))                         # 0.45146754796488575 (optimism −1)
/// norm.cdf(0.8 + np.sqrt(0.85) * norm.ppf(u1))          # 0.9711976607443067
/// norm.cdf(0.8 + np.sqrt(0.85) * norm.ppf(u2))          # 0.7392309866750705
/// lo, hi = norm.cdf(-0.5), norm.cdf(0.5)
/// norm.cdf(2 * np.sqrt(1.35) * norm.ppf(lo + (hi - lo) * u1))   # 0.8092759588823479 (t = 0.5, scale 2)
/// norm.cdf(0 + 2 * np.sqrt(1.35))                       # 0.9899316242248268 (optimism 2)
/// ```
@Suite("Bayesian probit regressors")
struct BayesianProbitRegressorTests {
    typealias T = ClassicTestModels

    static func gaussian(_ mean: Double, _ precision: Double) -> CoreML_Specification_BayesianProbitRegressor.Gaussian {
        var gaussian = CoreML_Specification_BayesianProbitRegressor.Gaussian()
        gaussian.mean = mean
        gaussian.precision = precision
        return gaussian
    }

    static func feature(_ id: UInt32, _ weights: [(UInt32, Double, Double)]) -> CoreML_Specification_BayesianProbitRegressor.FeatureWeight {
        var feature = CoreML_Specification_BayesianProbitRegressor.FeatureWeight()
        feature.featureID = id
        feature.weights = weights.map { value, mean, precision in
            var weight = CoreML_Specification_BayesianProbitRegressor.FeatureValueWeight()
            weight.featureValue = value
            weight.featureWeight = gaussian(mean, precision)
            return weight
        }
        return feature
    }

    static func model(inputShape: [Int64]) -> CoreML_Specification_Model {
        var description = CoreML_Specification_ModelDescription()
        description.input = [T.doubleArray("features", inputShape), T.double("optimism", optional: true),
                             T.double("scale", optional: true), T.double("truncation", optional: true)]
        description.output = ["mean", "variance", "pessimistic", "sampled"].map { T.double($0) }
        description.predictedFeatureName = "mean"
        return T.model(description) { model in
            var probit = CoreML_Specification_BayesianProbitRegressor()
            probit.numberOfFeatures = 3
            probit.bias = gaussian(0.1, 4)
            probit.features = [feature(0, [(1, 0.5, 2), (2, -0.3, 1)]), feature(2, [(0, 0.2, 10)])]
            probit.regressionInputFeatureName = "features"
            probit.optimismInputFeatureName = "optimism"
            probit.samplingScaleInputFeatureName = "scale"
            probit.samplingTruncationInputFeatureName = "truncation"
            probit.meanOutputFeatureName = "mean"
            probit.varianceOutputFeatureName = "variance"
            probit.pessimisticProbabilityOutputFeatureName = "pessimistic"
            probit.sampledProbabilityOutputFeatureName = "sampled"
            model.bayesianProbitRegressor = probit
        }
    }

    static func input(_ features: MLFeatureValue, optimism: Double? = nil, scale: Double? = nil, truncation: Double? = nil) -> MLFeatureProvider {
        var values = ["features": features]
        if let optimism { values["optimism"] = MLFeatureValue(double: optimism) }
        if let scale { values["scale"] = MLFeatureValue(double: scale) }
        if let truncation { values["truncation"] = MLFeatureValue(double: truncation) }
        return T.provider(values)
    }

    static func value(_ output: MLFeatureProvider, _ name: String) -> Double {
        output.featureValue(for: name)?.doubleValue ?? .nan
    }

    @Test func vectorInputGivesMeanVarianceAndProbabilities() throws {
        let model = try MLModel(specification: Self.model(inputShape: [3]))
        let first = try model.prediction(from: Self.input(T.vector([1, 7, 0]), optimism: -1))
        #expect(abs(Self.value(first, "mean") - 0.8) < 1e-15)
        #expect(abs(Self.value(first, "variance") - 0.85) < 1e-15)
        #expect(abs(Self.value(first, "pessimistic") - 0.45146754796488575) < 1e-14)
        #expect(abs(Self.value(first, "sampled") - 0.9711976607443067) < 1e-12)
        // The next draw continues the sequence; without optimism the pessimistic probability is Φ(0.8).
        let second = try model.prediction(from: Self.input(T.vector([1, 7, 0])))
        #expect(abs(Self.value(second, "sampled") - 0.7392309866750705) < 1e-12)
        #expect(abs(Self.value(second, "pessimistic") - 0.7881446014166034) < 1e-14)
        // A freshly loaded model starts the sequence again.
        let again = try MLModel(specification: Self.model(inputShape: [3])).prediction(from: Self.input(T.vector([1, 7, 0])))
        #expect(Self.value(again, "sampled") == Self.value(first, "sampled"))
    }

    @Test func pairInputWithTruncatedScaledSampling() throws {
        let model = try MLModel(specification: Self.model(inputShape: [2, 2]))
        let output = try model.prediction(from: Self.input(T.matrix([[0, 2], [2, 0]]), optimism: 2, scale: 2, truncation: 0.5))
        #expect(abs(Self.value(output, "mean")) < 1e-15)
        #expect(abs(Self.value(output, "variance") - 1.35) < 1e-15)
        #expect(abs(Self.value(output, "pessimistic") - 0.9899316242248268) < 1e-14)
        #expect(abs(Self.value(output, "sampled") - 0.8092759588823479) < 1e-12)
        // Truncation 0 pins the draw to the mean: Φ(0) = 0.5.
        let pinned = try model.prediction(from: Self.input(T.matrix([[0, 2], [2, 0]]), truncation: 0))
        #expect(Self.value(pinned, "sampled") == 0.5)
    }

    @Test func sampledProbabilitiesStayWithinTheTruncation() throws {
        let model = try MLModel(specification: Self.model(inputShape: [3]))
        let batch = MLArrayBatchProvider(array: (0..<200).map { _ in Self.input(T.vector([1, 7, 0]), truncation: 1) })
        let outputs = try model.predictions(fromBatch: batch)
        // Φ(0.8 ± √0.85): 0.45146754796488575 … Φ(1.7219…)
        let low = 0.45146754796488575
        let high = 0.5 * erfc(-(0.8 + 0.85.squareRoot()) / 2.0.squareRoot())
        var values: [Double] = []
        for index in 0..<outputs.count { values.append(Self.value(outputs.features(at: index), "sampled")) }
        #expect(values.allSatisfy { $0 >= low - 1e-12 && $0 <= high + 1e-12 })
        #expect(Set(values).count > 150)  // draws differ
    }

    @Test func hostileSpecsAndInputsAreRefused() throws {
        func edited(_ edit: (inout CoreML_Specification_Model) -> Void) -> CoreML_Specification_Model {
            var spec = Self.model(inputShape: [3])
            edit(&spec)
            return spec
        }
        let cases: [(CoreML_Specification_Model, [String])] = [
            (edited { $0.bayesianProbitRegressor.bias.precision = 0 }, ["precision 0", "bias"]),
            (edited { $0.bayesianProbitRegressor.features[0].weights[1].featureWeight.precision = .nan }, ["precision nan", "feature 0 value 2"]),
            (edited { $0.bayesianProbitRegressor.features[1].featureID = 3 }, ["feature id 3", "numberOfFeatures (3)"]),
            (edited { $0.bayesianProbitRegressor.features.append(Self.feature(0, [(1, 1, 1)])) }, ["two weights for value 1"]),
            (edited { $0.bayesianProbitRegressor.regressionInputFeatureName = "nope" }, ["'nope' is not among the inputs"]),
            (edited { $0.description_p.input[0] = T.doubleArray("features", [2, 3]) }, ["[n, 2]"]),
            (edited { $0.description_p.output.append(T.double("other")) }, ["output 'other'", "computes no output"]),
            (edited { $0.bayesianProbitRegressor.optimismInputFeatureName = "missing" }, ["optimism input 'missing'"]),
        ]
        for (spec, words) in cases {
            do {
                _ = try MLModel(specification: spec)
                Issue.record("\(words): the model loaded")
            } catch {
                #expect(words.allSatisfy { "\(error)".contains($0) }, "\(error) should mention \(words)")
            }
        }
        let model = try MLModel(specification: Self.model(inputShape: [3]))
        #expect { _ = try model.prediction(from: Self.input(T.vector([1, -2, 0]))) } throws: { T.mentions($0, "-2.0", "whole numbers") }
        #expect { _ = try model.prediction(from: Self.input(T.vector([1, 0.5, 0]))) } throws: { T.mentions($0, "0.5", "whole numbers") }
    }

    @Test func insideAPipeline() throws {
        // A GLM regressor turns x into the feature vector [x0, x1 + 6, 0]; the probit reads it.
        var first = GLMTests.regressor(weights: [[1, 0], [0, 1], [0, 0]], offsets: [0, 6, 0], output: T.doubleArray("features", [3]))
        first.description_p.input = [T.doubleArray("x", [2])]
        let second = Self.model(inputShape: [3])
        var pipeline = CoreML_Specification_Model()
        pipeline.specificationVersion = 1
        pipeline.description_p.input = [T.doubleArray("x", [2])]
        pipeline.description_p.output = [T.double("mean"), T.double("variance")]
        pipeline.pipeline.models = [first, second]
        let output = try T.predict(try MLModel(specification: pipeline), [1, 1])
        #expect(abs(Self.value(output, "mean") - 0.8) < 1e-15)
        #expect(abs(Self.value(output, "variance") - 0.85) < 1e-15)
    }
}
