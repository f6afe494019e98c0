/// One finished iteration of `LogisticRegression.fit` (the loss is the mean cross-entropy plus the penalty).
package typealias LogisticRegressionProgress = SolverProgress<LogisticRegression.Layout>

/// What `LogisticRegression.fit` returns: the model and how the solver ended.
package typealias LogisticRegressionFit = SolverFit<LogisticRegressionModel>
