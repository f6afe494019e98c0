import _OpenCoreMLLinear

/// The training options of Create ML's linear models: `MLLinearRegressor.ModelParameters` and
/// `MLLogisticRegressionClassifier.ModelParameters` are this one type here (Create ML gives both the
/// same options with the same defaults; the shared name is OpenCoreML's).
///
/// The penalties are added to the mean loss over the training rows (half the mean squared error
/// for the regressor, the mean cross-entropy for the classifier) and apply to the weights, never
/// to the intercept; with `featureRescaling` to the weights of the standardized columns. Both may be
/// positive (elastic net).
public struct LinearModelParameters: Sendable {
    /// Which rows measure the model while it trains (Create ML's `ValidationData`).
    public typealias ValidationData = TabularValidationData

    /// Validation rows: a split of the training table (default `.split(strategy: .automatic)`),
    /// another table, or none. Not used when a logistic classifier trains on a ``LabeledDataset``.
    public var validation: ValidationData
    /// The most solver iterations (L-BFGS, or OWL-QN with an L1 penalty); at least 1.
    public var maxIterations: Int
    /// λ₁ of λ₁·‖w‖₁ (finite, ≥ 0).
    public var l1Penalty: Double
    /// λ₂ of (λ₂/2)·‖w‖² (finite, ≥ 0).
    public var l2Penalty: Double
    /// Not used: a Wolfe line search chooses each step (kept for Create ML's spelling; the table
    /// trainers require it positive and finite, as Create ML does).
    public var stepSize: Double
    /// Training stops when no component of the objective's (pseudo-)gradient exceeds this
    /// (finite, ≥ 0).
    public var convergenceThreshold: Double
    /// Whether each column is scaled to zero mean and unit variance while fitting (the written
    /// weights are in the data's units either way).
    public var featureRescaling: Bool

    /// Training options with Create ML's defaults: automatic validation split, 10 iterations, no L1
    /// penalty, an L2 penalty of 0.01, step size 1, convergence threshold 0.01, rescaling on.
    public init(validation: ValidationData = .split(strategy: .automatic), maxIterations: Int = 10, l1Penalty: Double = 0,
                l2Penalty: Double = 0.01, stepSize: Double = 1.0, convergenceThreshold: Double = 0.01, featureRescaling: Bool = true) {
        self.validation = validation
        self.maxIterations = maxIterations
        self.l1Penalty = l1Penalty
        self.l2Penalty = l2Penalty
        self.stepSize = stepSize
        self.convergenceThreshold = convergenceThreshold
        self.featureRescaling = featureRescaling
    }

    /// Throws `CreateMLError` naming the first out-of-range parameter (`location` then its name).
    func validate(location: String) throws {
        guard maxIterations >= 1 else { throw CreateMLError("\(location).maxIterations", "must be at least 1, got \(maxIterations)") }
        for (name, value) in [("l1Penalty", l1Penalty), ("l2Penalty", l2Penalty), ("convergenceThreshold", convergenceThreshold)]
        where !(value.isFinite && value >= 0) {
            throw CreateMLError("\(location).\(name)", "must be a finite number ≥ 0, got \(value)")
        }
        guard stepSize.isFinite, stepSize > 0 else { throw CreateMLError("\(location).stepSize", "must be a finite number > 0, got \(stepSize)") }
    }

    /// The logistic solver's penalty: L1, L2, both (elastic net) or none.
    var penalty: LogisticRegression.Penalty {
        switch (l1Penalty > 0, l2Penalty > 0) {
        case (true, true): return .elasticNet(l1: l1Penalty, l2: l2Penalty)
        case (true, false): return .l1(l1Penalty)
        case (false, true): return .l2(l2Penalty)
        case (false, false): return .none
        }
    }
}
