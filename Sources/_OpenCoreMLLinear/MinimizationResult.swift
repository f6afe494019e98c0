/// Why a solver stopped.
package enum MinimizationStop: String, Sendable, Equatable {
    /// The largest gradient component fell to the gradient tolerance.
    case gradientTolerance
    /// The objective's relative decrease over one iteration fell to the loss tolerance.
    case lossTolerance
    /// The iteration limit was reached first.
    case maxIterations
    /// No step along a fresh steepest-descent direction lowered the objective: the point is as
    /// good as the objective's rounding allows.
    case noProgress
    /// The per-iteration callback asked to stop.
    case stoppedByCallback

    /// Whether the stop means the minimum was reached (to the tolerances or to rounding).
    package var isConverged: Bool { self == .gradientTolerance || self == .lossTolerance || self == .noProgress }

    /// The tolerance tests after an iteration that went from `previousValue` to `value`: the largest
    /// gradient component at most `gradientTolerance`, or (when `relativeLossTolerance > 0`) a
    /// decrease of at most `relativeLossTolerance · max(|fₖ|, |fₖ₊₁|, 1)`, as SciPy's L-BFGS-B.
    static func afterIteration(previousValue: Double, value: Double, gradientNorm: Double, gradientTolerance: Double,
                               relativeLossTolerance: Double) -> MinimizationStop? {
        if gradientNorm <= gradientTolerance { return .gradientTolerance }
        if relativeLossTolerance > 0, previousValue - value <= relativeLossTolerance * max(abs(previousValue), abs(value), 1) {
            return .lossTolerance
        }
        return nil
    }
}

/// One finished iteration of a solver, as its callback sees it.
package struct MinimizationIteration: Sendable {
    /// 1 for the first step taken.
    package var iteration: Int
    /// The objective at `x`.
    package var value: Double
    /// The largest absolute component of the (pseudo-)gradient at `x`.
    package var gradientNorm: Double
    /// Objective evaluations so far, line searches included.
    package var evaluations: Int
    /// The current point.
    package var x: [Double]
}

/// Where a solver ended and why.
package struct MinimizationResult: Sendable {
    /// The best point found.
    package var x: [Double]
    /// The objective at `x`.
    package var value: Double
    /// The largest absolute component of the (pseudo-)gradient at `x`.
    package var gradientNorm: Double
    /// Iterations taken.
    package var iterations: Int
    /// Objective evaluations made, line searches included.
    package var evaluations: Int
    package var stop: MinimizationStop
}
