import Foundation

/// A Bayesian probit regressor (Core ML's `BayesianProbitRegressor`): each (feature, value) pair
/// selects a weight that is an independent Gaussian, so the score ⟨w, x⟩ of an example is a
/// Gaussian whose mean and variance are the sums of the selected weights' (plus the bias's).
///
/// The probabilities apply Φ, the standard normal distribution function, to a score: Core ML's
/// format defines P(y = +1 | x, w) = Φ(⟨w, x⟩ / β) but stores no β; OpenCoreML takes β = 1.
package struct BayesianProbitRegression: Sendable {
    package struct Gaussian: Sendable, Equatable {
        package var mean: Double
        /// 1 / variance.
        package var precision: Double

        package init(mean: Double, precision: Double) {
            self.mean = mean
            self.precision = precision
        }
    }

    /// The bias term, if the model has one.
    package let bias: Gaussian?
    private let weights: [UInt64: Gaussian]

    /// The weights of (feature id, feature value) pairs; refuses a pair given twice.
    package init(bias: Gaussian?, weights: [(featureID: UInt32, featureValue: UInt32, weight: Gaussian)]) throws(EngineError) {
        self.bias = bias
        var table: [UInt64: Gaussian] = [:]
        table.reserveCapacity(weights.count)
        for entry in weights {
            let key = Self.key(entry.featureID, entry.featureValue)
            guard table.updateValue(entry.weight, forKey: key) == nil else {
                throw EngineError("", "feature \(entry.featureID) has two weights for value \(entry.featureValue)")
            }
        }
        self.weights = table
    }

    private static func key(_ id: UInt32, _ value: UInt32) -> UInt64 { UInt64(id) << 32 | UInt64(value) }

    /// The mean and variance of the score of an example given as (feature id, feature value)
    /// pairs: the bias plus the weight of every pair the model knows (pairs it does not know add
    /// nothing).
    package func score(_ pairs: some Sequence<(UInt32, UInt32)>) -> (mean: Double, variance: Double) {
        var mean = bias?.mean ?? 0
        var variance = bias.map { 1 / $0.precision } ?? 0
        for (id, value) in pairs {
            guard let weight = weights[Self.key(id, value)] else { continue }
            mean += weight.mean
            variance += 1 / weight.precision
        }
        return (mean, variance)
    }

    /// Φ(mean + optimism·√variance): the probability with the score's mean shifted by `optimism`
    /// standard deviations (negative optimism is pessimistic).
    package static func pessimisticProbability(mean: Double, variance: Double, optimism: Double) -> Double {
        NormalDistribution.cdf(mean + optimism * variance.squareRoot())
    }

    /// Φ(mean + scale·√variance·z) for a draw z of the standard normal distribution truncated to
    /// [−truncation, truncation] (no truncation when infinite), made from `uniform` in [0, 1) by
    /// inverting the distribution function. A truncation of 0 or less gives z = 0.
    package static func sampledProbability(mean: Double, variance: Double, scale: Double, truncation: Double, uniform: Double) -> Double {
        var z = 0.0
        if truncation > 0 {
            let low = truncation.isFinite ? NormalDistribution.cdf(-truncation) : 0
            let high = truncation.isFinite ? NormalDistribution.cdf(truncation) : 1
            // Keep u strictly inside (low, high) so z stays finite.
            let u = low + (high - low) * min(max(uniform, Double.ulpOfOne), 1 - Double.ulpOfOne)
            z = NormalDistribution.quantile(u)
            if truncation.isFinite { z = min(max(z, -truncation), truncation) }
        }
        return NormalDistribution.cdf(mean + scale * variance.squareRoot() * z)
    }
}
