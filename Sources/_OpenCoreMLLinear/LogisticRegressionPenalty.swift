extension LogisticRegression {
    /// The penalty on the weights (never on the intercepts), added to the *mean* loss over the N
    /// training rows:
    ///
    /// - `.l2(λ)`: `(λ/2)·‖W‖²`. scikit-learn's `LogisticRegression(C: c)` (l2, the default)
    ///   minimizes `Σᵢ lossᵢ + ‖W‖²/(2c)`; dividing by N gives the same minimizer with `λ = 1/(c·N)`.
    /// - `.l1(λ)`: `λ·‖W‖₁`. scikit-learn's `l1_ratio=1` (`penalty="l1"`) minimizes
    ///   `Σᵢ lossᵢ + ‖W‖₁/c`, so again `λ = 1/(c·N)`.
    /// - `.elasticNet(l1: λ₁, l2: λ₂)`: `λ₁·‖W‖₁ + (λ₂/2)·‖W‖²` (OWL-QN with the L2 term in the
    ///   smooth part). scikit-learn's `penalty="elasticnet", l1_ratio=ρ` minimizes
    ///   `Σᵢ lossᵢ + (ρ·‖W‖₁ + (1 − ρ)/2·‖W‖²)/c`, so `λ₁ = ρ/(c·N)` and `λ₂ = (1 − ρ)/(c·N)`.
    /// - `.none`: no penalty (scikit-learn's `C=np.inf`). Separable data then has no minimum and
    ///   the weights grow until an iteration limit or tolerance stops them.
    ///
    /// `lambda(scikitLearnC:sampleCount:)` does the conversion.
    package enum Penalty: Sendable, Equatable {
        case none
        case l2(Double)
        case l1(Double)
        case elasticNet(l1: Double, l2: Double)

        /// λ = 1/(C·N): the strength matching scikit-learn's `C` on `sampleCount` training rows.
        package static func lambda(scikitLearnC c: Double, sampleCount: Int) -> Double {
            1 / (c * Double(sampleCount))
        }

        /// λ₁, the weight of ‖W‖₁ (0 without an L1 term).
        var l1Strength: Double {
            switch self {
            case .l1(let lambda), .elasticNet(let lambda, _): return lambda
            case .none, .l2: return 0
            }
        }

        /// λ₂, the weight of ‖W‖²/2 (0 without an L2 term).
        var l2Strength: Double {
            switch self {
            case .l2(let lambda), .elasticNet(_, let lambda): return lambda
            case .none, .l1: return 0
            }
        }
    }
}
