extension LogisticRegression {
    /// The penalty on the weights (never on the intercepts), added to the *mean* loss over the N
    /// training rows:
    ///
    /// - `.l2(λ)`: `(λ/2)·‖W‖²`. scikit-learn's `LogisticRegression(C: c)` (l2, the default)
    ///   minimizes `Σᵢ lossᵢ + ‖W‖²/(2c)`; dividing by N gives the same minimizer with `λ = 1/(c·N)`.
    /// - `.l1(λ)`: `λ·‖W‖₁`. scikit-learn's `l1_ratio=1` (`penalty="l1"`) minimizes
    ///   `Σᵢ lossᵢ + ‖W‖₁/c`, so again `λ = 1/(c·N)`.
    /// - `.none`: no penalty (scikit-learn's `C=np.inf`). Separable data then has no minimum and
    ///   the weights grow until an iteration limit or tolerance stops them.
    ///
    /// `lambda(scikitLearnC:sampleCount:)` does the conversion.
    package enum Penalty: Sendable, Equatable {
        case none
        case l2(Double)
        case l1(Double)

        /// λ = 1/(C·N): the strength matching scikit-learn's `C` on `sampleCount` training rows.
        package static func lambda(scikitLearnC c: Double, sampleCount: Int) -> Double {
            1 / (c * Double(sampleCount))
        }

        var strength: Double {
            switch self {
            case .none: return 0
            case .l2(let lambda), .l1(let lambda): return lambda
            }
        }
    }
}
