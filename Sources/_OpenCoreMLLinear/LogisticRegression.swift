/// Multinomial logistic regression (softmax regression) fitted by L-BFGS, or by OWL-QN under an L1
/// or elastic-net penalty: the hyperparameters and `fit`.
///
/// It minimizes the mean cross-entropy over the training rows plus `penalty` on the weights,
/// starting from zeros; see `Penalty` for how λ maps to scikit-learn's `C`. With
/// `gradientTolerance` (scikit-learn's `tol`) and `maxIterations` (`max_iter`) the stopping rules
/// are those of scikit-learn's `solver="lbfgs"`: the largest gradient component of that mean
/// objective at most `tol`, or a relative loss decrease at most `relativeLossTolerance`.
///
/// With an intercept it works on centered features (the same minimizer, better conditioned), so
/// it takes a different and usually much shorter path than scikit-learn to the same minimum. The
/// logits are float32: gradient tolerances much below 1e-6 end in `.noProgress` at the rounding floor.
package struct LogisticRegression: Sendable {
    package var penalty: Penalty
    package var maxIterations: Int
    /// Stop when no gradient component exceeds this (scikit-learn's `tol`).
    package var gradientTolerance: Double
    /// Stop when an iteration lowers the loss by at most this fraction of it (scikit-learn passes
    /// 64·ε to SciPy).
    package var relativeLossTolerance: Double
    /// Scale each feature to zero mean and unit variance before fitting (as scikit-learn's
    /// `StandardScaler`); the penalty then applies to the standardized weights, and the model's
    /// weights are mapped back to the original features.
    package var standardizesFeatures: Bool
    package var fitsIntercept: Bool
    /// Curvature pairs the solver remembers (SciPy's default, 10).
    package var historySize: Int

    /// The defaults: a light L2 penalty (λ = 1e-4, scikit-learn's C = 1 on 10,000 rows) and
    /// scikit-learn's `max_iter`, `tol` and L-BFGS memory.
    var settings: QuasiNewtonSettings {
        QuasiNewtonSettings(maxIterations: maxIterations, gradientTolerance: gradientTolerance, relativeLossTolerance: relativeLossTolerance,
                            historySize: historySize)
    }

    package init(penalty: Penalty = .l2(1e-4), maxIterations: Int = 100, gradientTolerance: Double = 1e-4,
                relativeLossTolerance: Double = 64 * Double.ulpOfOne, standardizesFeatures: Bool = false,
                fitsIntercept: Bool = true, historySize: Int = 10) {
        self.penalty = penalty
        self.maxIterations = maxIterations
        self.gradientTolerance = gradientTolerance
        self.relativeLossTolerance = relativeLossTolerance
        self.standardizesFeatures = standardizesFeatures
        self.fitsIntercept = fitsIntercept
        self.historySize = historySize
    }

    /// Fits the model to `features` (rows of `featureCount` values, row-major) and one label in
    /// `0..<classCount` per row. `classCount` defaults to the largest label plus one.
    /// `onIteration` sees each finished iteration and returns false to stop early.
    /// Throws an `SolverError` for bad hyperparameters or data (naming the row and column).
    package func fit(features: [Float], featureCount: Int, labels: [Int], classCount: Int? = nil,
                    onIteration: ((LogisticRegressionProgress) -> Bool)? = nil) throws -> LogisticRegressionFit {
        try validateHyperparameters()
        let classes = try validate(features: features, featureCount: featureCount, labels: labels, classCount: classCount)

        // With an intercept the features are always centered: z = W·(x − μ) + (b + W·μ) is the same
        // model with the same penalty, and better conditioned. The objective centers on the fly;
        // only scaling makes a copy.
        let standardization = standardizesFeatures || fitsIntercept
            ? FeatureStandardization(features: features, featureCount: featureCount, scaling: standardizesFeatures) : nil
        let layout = Layout(featureCount: featureCount, classCount: classes, fitsIntercept: fitsIntercept, standardization: standardization)
        let l2 = penalty.l2Strength
        let objective = SoftmaxCrossEntropyObjective(
            features: standardizesFeatures ? standardization!.apply(to: features) : features, featureCount: featureCount,
            labels: labels, classCount: classes, l2: l2, fitsIntercept: fitsIntercept,
            centers: standardizesFeatures ? nil : standardization?.means)
        let start = [Double](repeating: 0, count: objective.dimension)
        let lambda = penalty.l1Strength, weightCount = featureCount * classes
        let l1Weights = (0..<objective.dimension).map { $0 < weightCount ? lambda : 0 }
        return settings.fit(objective, l1Weights: l1Weights, from: start, valueNoise: SoftmaxCrossEntropyObjective.valueNoise,
                            layout: layout, onIteration: onIteration)
    }

    /// How the solver's variables map onto a model.
    package struct Layout: SolverLayout {
        var featureCount: Int
        var classCount: Int
        var fitsIntercept: Bool
        var standardization: FeatureStandardization?

        /// W' = W/σ (per feature) and b' = b − W'·μ undo a standardization (or a centering, σ = 1).
        package func model(from x: [Double]) -> LogisticRegressionModel {
            let d = featureCount, k = classCount
            var weights = [Float](repeating: 0, count: k * d)
            var intercepts = [Float](repeating: 0, count: k)
            for c in 0..<k {
                var intercept = fitsIntercept ? x[k * d + c] : 0
                for j in 0..<d {
                    var w = x[c * d + j]
                    if let standardization {
                        w /= standardization.scales[j]
                        intercept -= w * standardization.means[j]
                    }
                    weights[c * d + j] = Float(w)
                }
                intercepts[c] = Float(intercept)
            }
            // Only differences between intercepts matter; give them mean 0, as scikit-learn's do.
            if fitsIntercept {
                let mean = intercepts.reduce(0, +) / Float(k)
                for c in 0..<k { intercepts[c] -= mean }
            }
            return LogisticRegressionModel(featureCount: d, classCount: k, weights: weights, intercepts: intercepts)
        }
    }

    private func validateHyperparameters() throws {
        for lambda in [penalty.l1Strength, penalty.l2Strength] where !(lambda.isFinite && lambda >= 0) {
            throw SolverError("LogisticRegression.penalty", "the strength λ must be a finite number ≥ 0, got \(lambda)")
        }
        try settings.validate("LogisticRegression")
    }

    /// Checks shapes, values and labels; returns the class count.
    private func validate(features: [Float], featureCount: Int, labels: [Int], classCount: Int?) throws -> Int {
        try SolverChecks.rows("LogisticRegression", features: features, featureCount: featureCount, rowCount: labels.count, perRow: "labels")
        let classes = classCount ?? (labels.max()! + 1)
        guard classes >= 2 else {
            throw SolverError("LogisticRegression.fit", "needs at least 2 classes, got \(classes)\(classCount == nil ? " (all labels are \(labels[0]))" : "")")
        }
        if let row = labels.firstIndex(where: { $0 < 0 || $0 >= classes }) {
            throw SolverError("LogisticRegression.fit", "labels[\(row)] is \(labels[row]), outside the classes 0..<\(classes)")
        }
        return classes
    }
}
