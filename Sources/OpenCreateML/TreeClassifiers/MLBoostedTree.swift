import _OpenCoreMLEngine

/// A gradient-boosted tree classifier (Create ML's `MLBoostedTreeClassifier`): XGBoost's
/// histogram method, depth-wise, logistic loss for two classes and softmax for more.
public typealias MLBoostedTreeClassifier = TabularTreeModel<BoostedTreeModelParameters, TreeClassification>
/// A gradient-boosted tree regressor (Create ML's `MLBoostedTreeRegressor`): squared error.
public typealias MLBoostedTreeRegressor = TabularTreeModel<BoostedTreeModelParameters, TreeRegression>

/// The boosted trees' training options (Create ML's `MLBoostedTreeClassifier.ModelParameters` and
/// `MLBoostedTreeRegressor.ModelParameters`, with its defaults). Each iteration adds one tree per
/// class (one for two classes and for regression) with XGBoost's L2 regularization λ = 1.
public struct BoostedTreeModelParameters: TreeModelParameters {
    public typealias ValidationData = TabularValidationData
    /// The validation rows (default: split off automatically). With validation and
    /// `earlyStoppingRounds`, the trees of the best validation iteration are kept.
    public var validation: ValidationData
    /// The deepest a tree grows (≥ 1).
    public var maxDepth: Int
    /// The boosting rounds (≥ 1).
    public var maxIterations: Int
    /// γ: a split must reduce the loss by more than this (≥ 0).
    public var minLossReduction: Double
    /// Each child of a split needs at least this hessian sum (≥ 0).
    public var minChildWeight: Double
    /// Seeds the row and column sampling (and the automatic validation split's shuffle is seeded
    /// separately, with 42).
    public var randomSeed: Int
    /// The learning rate η each tree is scaled by (> 0).
    public var stepSize: Double
    /// Stop after this many rounds without a better validation loss (nil: never; ignored without
    /// validation rows).
    public var earlyStoppingRounds: Int?
    /// The fraction of rows each tree sees, drawn without replacement (0, 1].
    public var rowSubsample: Double
    /// The fraction of feature columns each tree may split on (0, 1].
    public var columnSubsample: Double

    /// Training options with Create ML's defaults.
    public init() { self.init(validation: .split(strategy: .automatic)) }

    /// Training options; each unnamed one takes Create ML's default.
    public init(validation: ValidationData = .split(strategy: .automatic), maxDepth: Int = 6, maxIterations: Int = 10,
                minLossReduction: Double = 0, minChildWeight: Double = 0.1, randomSeed: Int = 42, stepSize: Double = 0.3,
                earlyStoppingRounds: Int? = nil, rowSubsample: Double = 1.0, columnSubsample: Double = 1.0) {
        self.validation = validation
        self.maxDepth = maxDepth
        self.maxIterations = maxIterations
        self.minLossReduction = minLossReduction
        self.minChildWeight = minChildWeight
        self.randomSeed = randomSeed
        self.stepSize = stepSize
        self.earlyStoppingRounds = earlyStoppingRounds
        self.rowSubsample = rowSubsample
        self.columnSubsample = columnSubsample
    }

    public func trainingPlan() throws -> TreeTrainingPlan {
        try TreeParameterCheck.atLeastOne(maxIterations, "maxIterations")
        try TreeParameterCheck.positive(stepSize, "stepSize")
        if let earlyStoppingRounds { try TreeParameterCheck.atLeastOne(earlyStoppingRounds, "earlyStoppingRounds") }
        let growth = try TreeParameterCheck.growth(maxDepth: maxDepth, minLossReduction: minLossReduction, minChildWeight: minChildWeight,
                                                   l2Regularization: 1, rowSubsample: rowSubsample, columnSubsample: columnSubsample,
                                                   bootstrap: false, randomSeed: randomSeed)
        return TreeTrainingPlan(algorithm: .boosted(growth: growth, iterations: maxIterations, stepSize: stepSize,
                                                    earlyStoppingRounds: earlyStoppingRounds),
                                name: "BoostedTree")
    }
}
