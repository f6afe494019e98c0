import Foundation

/// What a generalized linear model applies to each score (Core ML's post-evaluation transforms).
package enum LinkFunction: Sendable, Equatable {
    /// The score itself.
    case identity
    /// 1 / (1 + e^−y).
    case logistic
    /// Φ(y), the standard normal distribution function.
    case probit

    package func callAsFunction(_ y: Double) -> Double {
        switch self {
        case .identity: return y
        case .logistic: return Self.logistic(y)
        case .probit: return NormalDistribution.cdf(y)
        }
    }

    /// 1 / (1 + e^−y), without overflow for large |y|.
    package static func logistic(_ y: Double) -> Double {
        if y >= 0 { return 1 / (1 + exp(-y)) }
        let e = exp(y)
        return e / (1 + e)
    }
}
