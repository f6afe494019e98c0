/// One finished iteration of `LogisticRegression.fit`, for progress tables and for keeping the
/// iteration that does best on validation data.
public struct LogisticRegressionProgress: Sendable {
    /// 1 for the first iteration.
    public var iteration: Int
    /// The training objective: mean cross-entropy plus the penalty.
    public var loss: Double
    /// The largest absolute component of the objective's gradient (OWL-QN's pseudo-gradient
    /// under an L1 penalty), the quantity the gradient tolerance is compared with.
    public var gradientNorm: Double
    /// Objective evaluations so far (each is two passes over the data).
    public var evaluations: Int

    let variables: [Double]
    let layout: LogisticRegression.Layout

    /// The model at this iteration.
    public func model() -> LogisticRegressionModel { layout.model(from: variables) }
}

/// What `LogisticRegression.fit` returns: the model and how the solver ended.
public struct LogisticRegressionFit: Sendable {
    public var model: LogisticRegressionModel
    /// Iterations taken.
    public var iterations: Int
    /// Objective evaluations made.
    public var evaluations: Int
    /// The final training objective (mean cross-entropy plus penalty).
    public var loss: Double
    /// The final largest gradient component (pseudo-gradient under L1).
    public var gradientNorm: Double
    /// Why the solver stopped.
    public var stop: MinimizationStop
}
