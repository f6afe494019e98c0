/// One finished iteration of `LinearRegression.fit`.
package struct LinearRegressionProgress: Sendable {
    /// 1 for the first iteration.
    package var iteration: Int
    /// The training objective: half the mean squared error plus the penalties.
    package var loss: Double
    /// The largest absolute component of the (pseudo-)gradient.
    package var gradientNorm: Double
    /// Objective evaluations so far.
    package var evaluations: Int

    let variables: [Double]
    let layout: LinearRegression.Layout

    /// The model at this iteration.
    package func model() -> LinearRegressionModel { layout.model(from: variables) }
}

/// What `LinearRegression.fit` returns: the model and how the solver ended.
package struct LinearRegressionFit: Sendable {
    package var model: LinearRegressionModel
    package var iterations: Int
    package var evaluations: Int
    /// The final objective (half the mean squared error plus the penalties).
    package var loss: Double
    package var gradientNorm: Double
    package var stop: MinimizationStop
}
