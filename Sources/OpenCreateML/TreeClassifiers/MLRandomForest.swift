import _OpenCoreMLEngine

/// A random forest classifier (Create ML's `MLRandomForestClassifier`): trees grown on samples of
/// the rows and columns by Gini decrease, their class shares averaged.
public typealias MLRandomForestClassifier = TabularTreeModel<RandomForestModelParameters, TreeClassification>
/// A random forest regressor (Create ML's `MLRandomForestRegressor`): trees grown by squared
/// error, their means averaged.
public typealias MLRandomForestRegressor = TabularTreeModel<RandomForestModelParameters, TreeRegression>

/// The random forests' training options (Create ML's `MLRandomForestClassifier.ModelParameters`
/// and `MLRandomForestRegressor.ModelParameters`, with its defaults). Each tree sees
/// `rowSubsample` of the rows drawn without replacement (as Turi Create's forests; not a bootstrap
/// sample) and `columnSubsample` of the columns.
public struct RandomForestModelParameters: TreeModelParameters {
    public typealias ValidationData = TabularValidationData
    /// The validation rows (default: split off automatically); they only measure the forest.
    public var validation: ValidationData
    /// The deepest a tree grows (≥ 1).
    public var maxDepth: Int
    /// The number of trees (≥ 1).
    public var maxIterations: Int
    /// A split must reduce the squared error (Gini impurity for classes) by more than this (≥ 0).
    public var minLossReduction: Double
    /// Each child of a split needs at least this many rows' weight (≥ 0).
    public var minChildWeight: Double
    /// Seeds the row and column sampling.
    public var randomSeed: Int
    /// The fraction of rows each tree sees (0, 1].
    public var rowSubsample: Double
    /// The fraction of feature columns each tree may split on (0, 1].
    public var columnSubsample: Double

    /// Training options with Create ML's defaults.
    public init() { self.init(validation: .split(strategy: .automatic)) }

    /// Training options; each unnamed one takes Create ML's default.
    public init(validation: ValidationData = .split(strategy: .automatic), maxDepth: Int = 6, maxIterations: Int = 10,
                minLossReduction: Double = 0, minChildWeight: Double = 0.1, randomSeed: Int = 42, rowSubsample: Double = 0.8,
                columnSubsample: Double = 0.8) {
        self.validation = validation
        self.maxDepth = maxDepth
        self.maxIterations = maxIterations
        self.minLossReduction = minLossReduction
        self.minChildWeight = minChildWeight
        self.randomSeed = randomSeed
        self.rowSubsample = rowSubsample
        self.columnSubsample = columnSubsample
    }

    public func trainingPlan() throws -> TreeTrainingPlan {
        try TreeParameterCheck.atLeastOne(maxIterations, "maxIterations")
        let growth = try TreeParameterCheck.growth(maxDepth: maxDepth, minLossReduction: minLossReduction, minChildWeight: minChildWeight,
                                                   l2Regularization: 0, rowSubsample: rowSubsample, columnSubsample: columnSubsample,
                                                   bootstrap: false, randomSeed: randomSeed)
        return TreeTrainingPlan(algorithm: .forest(growth: growth, treeCount: maxIterations), name: "RandomForest")
    }
}
