/// Orthant-wise limited-memory quasi-Newton (Andrew & Gao, 2007): minimizes
/// `F(x) = f(x) + Σᵢ cᵢ·|xᵢ|` for a smooth f and weights cᵢ ≥ 0 (0 leaves a variable unpenalized,
/// e.g. an intercept).
///
/// Each iteration builds the pseudo-gradient ◇F (the steepest-descent direction's negative under the
/// L1 term), turns it into a quasi-Newton direction with the two-loop recursion over the smooth
/// part's curvature pairs, drops the penalized components that disagree in sign with −◇F, and backtracks along
/// the direction projected onto the orthant of the current point (a coordinate that would cross
/// zero stops at exactly zero, which is how the solution gets its exact zeros). Stopping rules as in
/// `LBFGS`, on the pseudo-gradient.
package struct OWLQN: Sendable {
    package var historySize: Int
    package var maxIterations: Int
    package var gradientTolerance: Double
    package var relativeLossTolerance: Double
    /// Sufficient-decrease constant of the backtracking search.
    package var sufficientDecrease = 1e-4
    /// Backtracking steps tried per iteration.
    package var maxBacktracks = 30

    package init(historySize: Int = 10, maxIterations: Int = 100, gradientTolerance: Double = 1e-4,
                relativeLossTolerance: Double = 64 * Double.ulpOfOne) {
        self.historySize = historySize
        self.maxIterations = maxIterations
        self.gradientTolerance = gradientTolerance
        self.relativeLossTolerance = relativeLossTolerance
    }

    /// Minimizes `objective(x) + Σ l1Weights[i]·|x[i]|` from `start`. Values and gradient norms
    /// reported (to `onIteration` and in the result) are of the whole penalized objective.
    package func minimize(_ objective: some DifferentiableObjective, l1Weights: [Double], from start: [Double],
                         onIteration: ((MinimizationIteration) -> Bool)? = nil) -> MinimizationResult {
        let n = objective.dimension
        precondition(start.count == n && l1Weights.count == n, "the start point and L1 weights must have the objective's dimension")
        precondition(l1Weights.allSatisfy { $0 >= 0 }, "L1 weights must be at least 0")

        func penalty(_ x: [Double]) -> Double {
            var sum = 0.0
            for i in 0..<n { sum += l1Weights[i] * abs(x[i]) }
            return sum
        }

        var x = start
        var gradient = [Double](repeating: 0, count: n)  // of the smooth part
        var value = objective.value(at: x, gradient: &gradient) + penalty(x)
        var evaluations = 1
        var pseudo = pseudoGradient(x, gradient, l1Weights)
        var history = LBFGSHistory(capacity: max(1, historySize))
        var iteration = 0
        var trialX = x
        var trialGradient = gradient

        func result(_ stop: MinimizationStop) -> MinimizationResult {
            MinimizationResult(x: x, value: value, gradientNorm: maxAbs(pseudo), iterations: iteration,
                               evaluations: evaluations, stop: stop)
        }

        if maxAbs(pseudo) <= gradientTolerance { return result(.gradientTolerance) }
        while iteration < maxIterations {
            var accepted: (step: Double, value: Double)?
            var direction: [Double] = []
            for attempt in 0..<2 {
                if attempt == 1 {
                    guard history.count > 0 else { break }
                    history.removeAll()
                }
                direction = history.apply(to: pseudo)
                for i in 0..<n {
                    // Penalized coordinates keep only components that point the way −◇F does.
                    direction[i] = l1Weights[i] == 0 || -direction[i] * pseudo[i] < 0 ? -direction[i] : 0
                }
                if dot(direction, pseudo) >= 0 { direction = pseudo.map { -$0 } }
                // The orthant to stay in: the sign of each coordinate, or of −◇F where it is zero
                // (penalized coordinates only; the others move freely).
                let orthant = (0..<n).map { i in x[i] != 0 ? (x[i] > 0 ? 1.0 : -1.0) : (pseudo[i] < 0 ? 1.0 : (pseudo[i] > 0 ? -1.0 : 0)) }
                var step = history.count == 0 ? min(1, 1 / dot(direction, direction).squareRoot()) : 1
                for _ in 0..<maxBacktracks {
                    var decrease = 0.0
                    for i in 0..<n {
                        var t = x[i] + step * direction[i]
                        if l1Weights[i] > 0 && t * orthant[i] <= 0 { t = 0 }
                        trialX[i] = t
                        decrease += pseudo[i] * (t - x[i])
                    }
                    let trialValue = objective.value(at: trialX, gradient: &trialGradient) + penalty(trialX)
                    evaluations += 1
                    if trialValue.isFinite && trialValue <= value + sufficientDecrease * decrease && decrease < 0 {
                        accepted = (step, trialValue)
                        break
                    }
                    step *= 0.5
                }
                if accepted != nil { break }
            }
            guard let (_, newValue) = accepted else { return result(.noProgress) }

            iteration += 1
            let previousValue = value
            history.append(step: (from: x, to: trialX), gradients: (from: gradient, to: trialGradient))
            swap(&x, &trialX)
            swap(&gradient, &trialGradient)
            value = newValue
            pseudo = pseudoGradient(x, gradient, l1Weights)
            let gradientNorm = maxAbs(pseudo)

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

    /// ◇F: the gradient of f plus the L1 term's one-sided derivative in the direction of descent
    /// (zero where no one-sided derivative descends).
    func pseudoGradient(_ x: [Double], _ gradient: [Double], _ weights: [Double]) -> [Double] {
        var result = gradient
        for i in 0..<x.count where weights[i] > 0 {
            let c = weights[i], g = gradient[i]
            if x[i] > 0 {
                result[i] = g + c
            } else if x[i] < 0 {
                result[i] = g - c
            } else if g + c < 0 {
                result[i] = g + c
            } else if g - c > 0 {
                result[i] = g - c
            } else {
                result[i] = 0
            }
        }
        return result
    }
}
