extension MLLinearRegressor {
    /// The linear regressor's training options (Create ML's `MLLinearRegressor.ModelParameters`,
    /// with its defaults). The objective is
    ///
    ///     (1/2N) Σᵢ (w·xᵢ + b − yᵢ)² + l1Penalty·‖w‖₁ + (l2Penalty/2)·‖w‖²
    ///
    /// over the N training rows (the intercept b is not penalized; with `featureRescaling` w are
    /// the weights of the standardized columns). In scikit-learn's terms: `Ridge(alpha: a)` is
    /// `l2Penalty = a/N`; `Lasso(alpha: a)` is `l1Penalty = a`; `ElasticNet(alpha: a, l1_ratio: ρ)`
    /// is `l1Penalty = a·ρ`, `l2Penalty = a·(1 − ρ)`. Create ML does not document its scaling
    /// (Turi Create's penalties were on the summed squared error).
    public struct ModelParameters: Sendable {
        /// Which rows measure the model while it trains (Create ML's `ValidationData`).
        public typealias ValidationData = TabularValidationData

        /// Validation rows: a split of the training table (default `.split(strategy: .automatic)`),
        /// another table, or none.
        public var validation: ValidationData
        /// The most solver iterations (L-BFGS, or OWL-QN with an L1 penalty); at least 1.
        public var maxIterations: Int
        /// λ₁ of λ₁·‖w‖₁ (finite, ≥ 0).
        public var l1Penalty: Double
        /// λ₂ of (λ₂/2)·‖w‖² (finite, ≥ 0).
        public var l2Penalty: Double
        /// Not used: a line search chooses each step (kept for Create ML's spelling; must be
        /// positive and finite, as Create ML requires).
        public var stepSize: Double
        /// Training stops when no component of the objective's (pseudo-)gradient exceeds this
        /// (finite, ≥ 0).
        public var convergenceThreshold: Double
        /// Whether each encoded column is scaled to zero mean and unit variance while fitting (the
        /// written weights are in the data's units either way).
        public var featureRescaling: Bool

        /// Training options with Create ML's defaults: automatic validation split, 10 iterations,
        /// no L1 penalty, an L2 penalty of 0.01, step size 1, convergence threshold 0.01, rescaling on.
        public init(validation: ValidationData = .split(strategy: .automatic), maxIterations: Int = 10, l1Penalty: Double = 0,
                    l2Penalty: Double = 0.01, stepSize: Double = 1.0, convergenceThreshold: Double = 0.01,
                    featureRescaling: Bool = true) {
            self.validation = validation
            self.maxIterations = maxIterations
            self.l1Penalty = l1Penalty
            self.l2Penalty = l2Penalty
            self.stepSize = stepSize
            self.convergenceThreshold = convergenceThreshold
            self.featureRescaling = featureRescaling
        }

        /// Throws `CreateMLError` naming the first out-of-range parameter.
        func validate(location: String) throws {
            try LinearModelParameterChecks.check(location: location, maxIterations: maxIterations, l1Penalty: l1Penalty,
                                                 l2Penalty: l2Penalty, stepSize: stepSize, convergenceThreshold: convergenceThreshold)
        }
    }
}

/// The range checks the linear regressor and the logistic classifier share.
enum LinearModelParameterChecks {
    static func check(location: String, maxIterations: Int, l1Penalty: Double, l2Penalty: Double, stepSize: Double,
                      convergenceThreshold: Double) throws {
        guard maxIterations >= 1 else { throw CreateMLError("\(location).maxIterations", "must be at least 1, got \(maxIterations)") }
        for (name, value) in [("l1Penalty", l1Penalty), ("l2Penalty", l2Penalty), ("convergenceThreshold", convergenceThreshold)]
        where !(value.isFinite && value >= 0) {
            throw CreateMLError("\(location).\(name)", "must be a finite number ≥ 0, got \(value)")
        }
        guard stepSize.isFinite, stepSize > 0 else { throw CreateMLError("\(location).stepSize", "must be a finite number > 0, got \(stepSize)") }
    }
}
