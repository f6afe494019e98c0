/// One finished iteration of `LogisticRegression.fit`, for progress tables and for keeping the
/// iteration that does best on validation data.
package struct LogisticRegressionProgress: Sendable {
    /// 1 for the first iteration.
    package var iteration: Int
    /// The training objective: mean cross-entropy plus the penalty.
    package var loss: Double
    /// The largest absolute component of the objective's gradient (OWL-QN's pseudo-gradient
    /// under an L1 penalty), the quantity the gradient tolerance is compared with.
    package var gradientNorm: Double
    /// Objective evaluations so far (each is two passes over the data).
    package var evaluations: Int

    let variables: [Double]
    let layout: LogisticRegression.Layout

    /// The model at this iteration.
    package func model() -> LogisticRegressionModel { layout.model(from: variables) }
}

/// What `LogisticRegression.fit` returns: the model and how the solver ended.
package struct LogisticRegressionFit: Sendable {
    package var model: LogisticRegressionModel
    /// Iterations taken.
    package var iterations: Int
    /// Objective evaluations made.
    package var evaluations: Int
    /// The final training objective (mean cross-entropy plus penalty).
    package var loss: Double
    /// The final largest gradient component (pseudo-gradient under L1).
    package var gradientNorm: Double
    /// Why the solver stopped.
    package var stop: MinimizationStop
}
