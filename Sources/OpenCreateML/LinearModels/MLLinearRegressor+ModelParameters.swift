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
    /// (Turi Create's penalties were on the summed squared error). The options and defaults are the
    /// logistic classifier's too (``LinearModelParameters``).
    public typealias ModelParameters = LinearModelParameters
}
