import Foundation

/// What a tree ensemble applies to each row's summed outputs (Core ML's post-evaluation transforms).
package enum TreeEnsembleTransform: Sendable {
    /// The sums as they are.
    case none
    /// vᵢ / Σ vⱼ when every value is at least 0 and their sum is positive (a classifier's class
    /// shares summed over its trees, made probabilities again); otherwise the values as they are.
    case shares
    /// exp(vᵢ) / Σ exp(vⱼ).
    case softmax
    /// 1 / (1 + exp(−vᵢ)), each value on its own.
    case logistic
    /// The softmax over [0, v₀, v₁, …] without its first (reference) entry:
    /// exp(vᵢ) / (1 + Σ exp(vⱼ)). For one value that is the logistic function.
    case softmaxWithZeroReference

    /// Transforms one row's values in place.
    package func apply(to values: UnsafeMutableBufferPointer<Double>) {
        switch self {
        case .none:
            return
        case .shares:
            var sum = 0.0
            for value in values {
                guard value >= 0 else { return }
                sum += value
            }
            guard sum > 0, sum.isFinite else { return }
            for index in values.indices { values[index] /= sum }
        case .logistic:
            for index in values.indices { values[index] = 1 / (1 + exp(-values[index])) }
        case .softmax, .softmaxWithZeroReference:
            guard !values.isEmpty else { return }
            var largest = values.max()!
            if self == .softmaxWithZeroReference { largest = max(largest, 0) }
            var sum = self == .softmaxWithZeroReference ? exp(-largest) : 0
            for index in values.indices {
                values[index] = exp(values[index] - largest)
                sum += values[index]
            }
            for index in values.indices { values[index] /= sum }
        }
    }
}
