/// Linear regression by least squares with an elastic-net penalty, fitted by L-BFGS, or by OWL-QN
/// when there is an L1 term: the hyperparameters and `fit`.
///
/// It minimizes
///
///     (1/2N) Σᵢ (w·xᵢ + b − yᵢ)² + l1·‖w‖₁ + (l2/2)·‖w‖²
///
/// (the intercept b is never penalized). That is scikit-learn's `ElasticNet` objective term for
/// term, so the penalties map onto scikit-learn's as:
///
/// - `Ridge(alpha: a)` minimizes `‖y − Xw − b‖² + a·‖w‖²` (a sum, not a mean): `l2 = a/N`, `l1 = 0`.
/// - `Lasso(alpha: a)` minimizes `(1/2N)‖y − Xw − b‖² + a·‖w‖₁`: `l1 = a`, `l2 = 0`.
/// - `ElasticNet(alpha: a, l1_ratio: ρ)` adds `a·ρ·‖w‖₁ + (a·(1 − ρ)/2)·‖w‖²`: `l1 = a·ρ`, `l2 = a·(1 − ρ)`.
///
/// With `standardizesFeatures` the features are scaled to zero mean and unit (population)
/// variance while fitting, the penalties apply to the standardized weights, and the model's
/// weights are mapped back to the data's units (scikit-learn's `make_pipeline(StandardScaler(),
/// Ridge(…))` with the weights divided by the scales). With an intercept the features are always
/// centered (the same minimizer, better conditioned) and the intercept starts at the targets' mean.
package struct LinearRegression: Sendable {
    /// λ₁ of `l1·‖w‖₁`.
    package var l1: Double
    /// λ₂ of `(l2/2)·‖w‖²`.
    package var l2: Double
    /// Iterations, tolerances and memory of the solver (L-BFGS, or OWL-QN when `l1 > 0`).
    package var solver: QuasiNewtonSettings
    /// Scale each feature to zero mean and unit variance while fitting (the penalties then apply to
    /// the standardized weights; the model's weights are mapped back to the data's units).
    package var standardizesFeatures: Bool
    package var fitsIntercept: Bool

    package init(l1: Double = 0, l2: Double = 0, solver: QuasiNewtonSettings = QuasiNewtonSettings(), standardizesFeatures: Bool = false,
                fitsIntercept: Bool = true) {
        self.l1 = l1
        self.l2 = l2
        self.solver = solver
        self.standardizesFeatures = standardizesFeatures
        self.fitsIntercept = fitsIntercept
    }

    /// Fits the model to `features` (rows of `featureCount` values, row-major) and one target per
    /// row. `onIteration` sees each finished iteration (its objective, largest gradient component
    /// and the model so far) and returns false to stop early. Throws a `SolverError` for bad
    /// hyperparameters or data, naming the parameter or the row and column.
    package func fit(features: [Double], featureCount: Int, targets: [Double],
                    onIteration: ((LinearRegressionProgress) -> Bool)? = nil) throws -> LinearRegressionFit {
        try validateHyperparameters()
        try validate(features: features, featureCount: featureCount, targets: targets)
        let standardization = standardizesFeatures || fitsIntercept
            ? FeatureStandardization(features: features, featureCount: featureCount, scaling: standardizesFeatures) : nil
        let layout = Layout(featureCount: featureCount, fitsIntercept: fitsIntercept, standardization: standardization)
        let objective = LeastSquaresObjective(
            features: standardizesFeatures ? standardization!.apply(to: features) : features, featureCount: featureCount,
            targets: targets, l2: l2, fitsIntercept: fitsIntercept, centers: standardizesFeatures ? nil : standardization?.means)
        var start = [Double](repeating: 0, count: objective.dimension)
        // With centered features the best intercept for any w is the targets' mean.
        if fitsIntercept { start[featureCount] = targets.reduce(0, +) / Double(targets.count) }
        let l1Weights = (0..<objective.dimension).map { $0 < featureCount ? l1 : 0 }
        return solver.fit(objective, l1Weights: l1Weights, from: start, valueNoise: 0, layout: layout, onIteration: onIteration)
    }

    /// How the solver's variables map onto a model.
    package struct Layout: SolverLayout {
        var featureCount: Int
        var fitsIntercept: Bool
        var standardization: FeatureStandardization?

        /// w' = w/σ (per feature) and b' = b − w'·μ undo a standardization (or a centering, σ = 1).
        package func model(from x: [Double]) -> LinearRegressionModel {
            var weights = Array(x[0..<featureCount])
            var intercept = fitsIntercept ? x[featureCount] : 0
            if let standardization {
                for j in 0..<featureCount {
                    weights[j] /= standardization.scales[j]
                    intercept -= weights[j] * standardization.means[j]
                }
            }
            return LinearRegressionModel(weights: weights, intercept: intercept)
        }
    }

    private func validateHyperparameters() throws {
        for (name, value) in [("l1", l1), ("l2", l2)] where !(value.isFinite && value >= 0) {
            throw SolverError("LinearRegression.\(name)", "must be a finite number ≥ 0, got \(value)")
        }
        try solver.validate("LinearRegression")
    }

    private func validate(features: [Double], featureCount: Int, targets: [Double]) throws {
        try SolverChecks.rows("LinearRegression", features: features, featureCount: featureCount, rowCount: targets.count, perRow: "targets")
        if let row = targets.firstIndex(where: { !$0.isFinite }) {
            throw SolverError("LinearRegression.fit", "targets: row \(row) is \(targets[row]), not a finite number")
        }
    }
}
