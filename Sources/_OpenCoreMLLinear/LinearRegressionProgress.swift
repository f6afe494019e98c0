/// One finished iteration of `LinearRegression.fit` (the loss is half the mean squared error plus the penalties).
package typealias LinearRegressionProgress = SolverProgress<LinearRegression.Layout>

/// What `LinearRegression.fit` returns: the model and how the solver ended.
package typealias LinearRegressionFit = SolverFit<LinearRegressionModel>
