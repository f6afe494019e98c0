/// How the linear models run their quasi-Newton solver: the stopping rules and memory, and the
/// choice between OWL-QN (when any variable has an L1 weight) and L-BFGS.
package struct QuasiNewtonSettings: Sendable, Equatable {
    package var maxIterations: Int
    /// Stop when no component of the (pseudo-)gradient exceeds this.
    package var gradientTolerance: Double
    /// Stop when an iteration lowers the objective by at most this fraction of it (0: never).
    package var relativeLossTolerance: Double
    /// Curvature pairs the solver remembers.
    package var historySize: Int

    package init(maxIterations: Int = 100, gradientTolerance: Double = 1e-6, relativeLossTolerance: Double = 64 * Double.ulpOfOne,
                historySize: Int = 10) {
        self.maxIterations = maxIterations
        self.gradientTolerance = gradientTolerance
        self.relativeLossTolerance = relativeLossTolerance
        self.historySize = historySize
    }

    /// Throws a `SolverError` located at `owner`'s setting: fewer than one iteration, a tolerance
    /// that is negative or not finite, no curvature pair.
    func validate(_ owner: String) throws {
        guard maxIterations >= 1 else {
            throw SolverError("\(owner).maxIterations", "must be at least 1, got \(maxIterations)")
        }
        for (name, value) in [("gradientTolerance", gradientTolerance), ("relativeLossTolerance", relativeLossTolerance)]
        where !(value.isFinite && value >= 0) {
            throw SolverError("\(owner).\(name)", "must be a finite number ≥ 0, got \(value)")
        }
        guard historySize >= 1 else {
            throw SolverError("\(owner).historySize", "must be at least 1, got \(historySize)")
        }
    }

    /// Minimizes `objective(x) + Σ l1Weights[i]·|x[i]|` from `start`: by OWL-QN when any L1 weight
    /// is positive, by L-BFGS (with the objective's `valueNoise`) otherwise.
    func minimize(_ objective: some DifferentiableObjective, l1Weights: [Double], from start: [Double], valueNoise: Double,
                  onIteration: ((MinimizationIteration) -> Bool)?) -> MinimizationResult {
        if l1Weights.contains(where: { $0 > 0 }) {
            let solver = OWLQN(historySize: historySize, maxIterations: maxIterations, gradientTolerance: gradientTolerance,
                               relativeLossTolerance: relativeLossTolerance)
            return solver.minimize(objective, l1Weights: l1Weights, from: start, onIteration: onIteration)
        }
        let solver = LBFGS(historySize: historySize, maxIterations: maxIterations, gradientTolerance: gradientTolerance,
                           relativeLossTolerance: relativeLossTolerance, valueNoise: valueNoise)
        return solver.minimize(objective, from: start, onIteration: onIteration)
    }

    /// Fits a linear model: minimizes as ``minimize(_:l1Weights:from:valueNoise:onIteration:)``,
    /// reporting each iteration with its model through `layout`, and returns the model `layout`
    /// makes of the solution.
    func fit<Layout: SolverLayout>(_ objective: some DifferentiableObjective, l1Weights: [Double], from start: [Double], valueNoise: Double,
                                   layout: Layout, onIteration: ((SolverProgress<Layout>) -> Bool)?) -> SolverFit<Layout.Model> {
        let report: ((MinimizationIteration) -> Bool)? = onIteration.map { callback in
            { step in
                callback(SolverProgress(iteration: step.iteration, loss: step.value, gradientNorm: step.gradientNorm,
                                        evaluations: step.evaluations, variables: step.x, layout: layout))
            }
        }
        let result = minimize(objective, l1Weights: l1Weights, from: start, valueNoise: valueNoise, onIteration: report)
        return SolverFit(model: layout.model(from: result.x), iterations: result.iterations, evaluations: result.evaluations,
                         loss: result.value, gradientNorm: result.gradientNorm, stop: result.stop)
    }
}
