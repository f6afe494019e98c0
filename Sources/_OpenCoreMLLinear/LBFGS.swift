/// Limited-memory BFGS: minimizes a smooth function from the last `historySize` curvature pairs
/// (two-loop recursion) with a strong-Wolfe line search.
///
/// Stops, like SciPy's L-BFGS-B as scikit-learn calls it, when the largest gradient component is at
/// most `gradientTolerance`, when one iteration lowers the objective by at most
/// `relativeLossTolerance · max(|fₖ|, |fₖ₊₁|, 1)`, or after `maxIterations` iterations. When a line
/// search fails, the history is dropped and the search retried along the steepest-descent direction;
/// if that fails too the point is as good as rounding allows (`.noProgress`).
package struct LBFGS: Sendable {
    package var historySize: Int
    package var maxIterations: Int
    package var gradientTolerance: Double
    package var relativeLossTolerance: Double
    /// The objective's relative rounding: within it, the line search judges a step's decrease by the
    /// slopes (approximate Wolfe conditions) instead of the values. 0 for objectives computed in float64.
    package var valueNoise: Double

    package init(historySize: Int = 10, maxIterations: Int = 100, gradientTolerance: Double = 1e-4,
                relativeLossTolerance: Double = 64 * Double.ulpOfOne, valueNoise: Double = 0) {
        self.historySize = historySize
        self.maxIterations = maxIterations
        self.gradientTolerance = gradientTolerance
        self.relativeLossTolerance = relativeLossTolerance
        self.valueNoise = valueNoise
    }

    /// Minimizes `objective` from `start`. `onIteration` sees every finished iteration and returns
    /// false to stop there.
    package func minimize(_ objective: some DifferentiableObjective, from start: [Double],
                         onIteration: ((MinimizationIteration) -> Bool)? = nil) -> MinimizationResult {
        precondition(start.count == objective.dimension, "the start point must have the objective's dimension")
        let n = objective.dimension
        var x = start
        var gradient = [Double](repeating: 0, count: n)
        var value = objective.value(at: x, gradient: &gradient)
        var evaluations = 1
        var history = LBFGSHistory(capacity: max(1, historySize))
        var iteration = 0
        var trialX = x
        var trialGradient = gradient

        func result(_ stop: MinimizationStop) -> MinimizationResult {
            MinimizationResult(x: x, value: value, gradientNorm: maxAbs(gradient), iterations: iteration,
                               evaluations: evaluations, stop: stop)
        }

        if maxAbs(gradient) <= gradientTolerance { return result(.gradientTolerance) }
        var lineSearch = WolfeLineSearch()
        lineSearch.valueNoise = valueNoise
        while iteration < maxIterations {
            var direction: [Double] = []
            var accepted: WolfeLineSearch.Point?
            // First with the history; after a failure, once more along −∇f with no history.
            for attempt in 0..<2 {
                if attempt == 1 {
                    guard history.count > 0 else { break }
                    history.removeAll()
                }
                direction = history.apply(to: gradient)
                for i in 0..<n { direction[i] = -direction[i] }
                var slope0 = dot(gradient, direction)
                if !(slope0 < 0) {
                    // Not a descent direction (rounding in the history): use steepest descent.
                    history.removeAll()
                    direction = gradient.map { -$0 }
                    slope0 = dot(gradient, direction)
                }
                // Without curvature information the first trial moves a unit distance, as L-BFGS-B does.
                let initialStep = history.count == 0 ? min(1, 1 / dot(direction, direction).squareRoot()) : 1
                accepted = lineSearch.search(initialStep: initialStep, value0: value, slope0: slope0) { step in
                    for i in 0..<n { trialX[i] = x[i] + step * direction[i] }
                    let trialValue = objective.value(at: trialX, gradient: &trialGradient)
                    evaluations += 1
                    return (trialValue, dot(trialGradient, direction))
                }
                if accepted != nil { break }
            }
            guard let point = accepted else { return result(.noProgress) }

            iteration += 1
            let previousValue = value
            history.append(step: (from: x, to: trialX), gradients: (from: gradient, to: trialGradient))
            swap(&x, &trialX)
            swap(&gradient, &trialGradient)
            value = point.value
            let gradientNorm = maxAbs(gradient)

            if let onIteration, !onIteration(MinimizationIteration(iteration: iteration, value: value, gradientNorm: gradientNorm,
                                                                    evaluations: evaluations, x: x)) {
                return result(.stoppedByCallback)
            }
            if let stop = MinimizationStop.afterIteration(previousValue: previousValue, value: value, gradientNorm: gradientNorm,
                                                          gradientTolerance: gradientTolerance, relativeLossTolerance: relativeLossTolerance) {
                return result(stop)
            }
        }
        return result(.maxIterations)
    }
}
