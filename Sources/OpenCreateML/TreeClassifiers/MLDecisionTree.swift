import _OpenCoreMLEngine

/// A decision tree classifier (Create ML's `MLDecisionTreeClassifier`): one tree grown on all rows
/// and columns by Gini decrease; a leaf holds its rows' class shares.
public typealias MLDecisionTreeClassifier = TabularTreeModel<DecisionTreeModelParameters, TreeClassification>
/// A decision tree regressor (Create ML's `MLDecisionTreeRegressor`): one tree by squared error;
/// a leaf holds its rows' mean.
public typealias MLDecisionTreeRegressor = TabularTreeModel<DecisionTreeModelParameters, TreeRegression>

/// The decision trees' training options (Create ML's `MLDecisionTreeClassifier.ModelParameters`
/// and `MLDecisionTreeRegressor.ModelParameters`, with its defaults).
public struct DecisionTreeModelParameters: TreeModelParameters {
    public typealias ValidationData = TabularValidationData
    /// The validation rows (default: split off automatically); they only measure the tree.
    public var validation: ValidationData
    /// The deepest the tree grows (≥ 1).
    public var maxDepth: Int
    /// A split must reduce the squared error (Gini impurity for classes) by more than this (≥ 0).
    public var minLossReduction: Double
    /// Each child of a split needs at least this many rows' weight (≥ 0).
    public var minChildWeight: Double
    /// Kept for Create ML's spelling: one tree on all rows and columns draws nothing at random.
    public var randomSeed: Int

    /// Training options with Create ML's defaults.
    public init() { self.init(validation: .split(strategy: .automatic)) }

    /// Training options; each unnamed one takes Create ML's default.
    public init(validation: ValidationData = .split(strategy: .automatic), maxDepth: Int = 6, minLossReduction: Double = 0,
                minChildWeight: Double = 0.1, randomSeed: Int = 42) {
        self.validation = validation
        self.maxDepth = maxDepth
        self.minLossReduction = minLossReduction
        self.minChildWeight = minChildWeight
        self.randomSeed = randomSeed
    }

    public func trainingPlan() throws -> TreeTrainingPlan {
        let growth = try TreeParameterCheck.growth(maxDepth: maxDepth, minLossReduction: minLossReduction, minChildWeight: minChildWeight,
                                                   l2Regularization: 0, rowSubsample: 1, columnSubsample: 1, bootstrap: false,
                                                   randomSeed: randomSeed)
        return TreeTrainingPlan(algorithm: .forest(growth: growth, treeCount: 1), name: "DecisionTree")
    }
}
