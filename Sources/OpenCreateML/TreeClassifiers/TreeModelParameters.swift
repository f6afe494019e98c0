import _OpenCoreMLEngine

/// What the tree trainers' `ModelParameters` have in common (an OpenCoreML protocol): the
/// validation rows and the checked training plan. ``MLBoostedTreeClassifier``,
/// ``MLRandomForestClassifier``, ``MLDecisionTreeClassifier`` and their regressors are one generic
/// trainer (``TabularTreeModel``) specialised by their parameters and task.
public protocol TreeModelParameters: Sendable {
    /// Create ML's defaults.
    init()
    /// Which rows measure the model while it trains.
    var validation: TabularValidationData { get }
    /// The trainer the parameters configure; throws `CreateMLError` naming a parameter out of range.
    func trainingPlan() throws -> TreeTrainingPlan
}

/// A checked tree-training configuration, made by a ``TreeModelParameters`` type (its contents are
/// internal to OpenCreateML).
public struct TreeTrainingPlan: Sendable {
    enum Algorithm: Sendable {
        case boosted(growth: TreeGrowthParameters, iterations: Int, stepSize: Double, earlyStoppingRounds: Int?)
        case forest(growth: TreeGrowthParameters, treeCount: Int)
    }

    let algorithm: Algorithm
    /// "BoostedTree", "RandomForest" or "DecisionTree": the trainer's names are `ML<name>Classifier`
    /// and `ML<name>Regressor`.
    let name: String
}

/// Range checks shared by the tree parameters: each throws `CreateMLError` naming
/// `ModelParameters.<name>`.
enum TreeParameterCheck {
    static func atLeastOne(_ value: Int, _ name: String) throws {
        guard value >= 1 else { throw CreateMLError("ModelParameters.\(name)", "must be at least 1, got \(value)") }
    }

    static func nonNegative(_ value: Double, _ name: String) throws {
        guard value >= 0, value.isFinite else { throw CreateMLError("ModelParameters.\(name)", "must be a finite number ≥ 0, got \(value)") }
    }

    static func positive(_ value: Double, _ name: String) throws {
        guard value > 0, value.isFinite else { throw CreateMLError("ModelParameters.\(name)", "must be a finite number > 0, got \(value)") }
    }

    static func fraction(_ value: Double, _ name: String) throws {
        guard value > 0, value <= 1 else { throw CreateMLError("ModelParameters.\(name)", "must lie in (0, 1], got \(value)") }
    }

    /// The engine's growth parameters, after checking the shared ones.
    static func growth(maxDepth: Int, minLossReduction: Double, minChildWeight: Double, l2Regularization: Double,
                       rowSubsample: Double, columnSubsample: Double, bootstrap: Bool, randomSeed: Int) throws -> TreeGrowthParameters {
        try atLeastOne(maxDepth, "maxDepth")
        try nonNegative(minLossReduction, "minLossReduction")
        try nonNegative(minChildWeight, "minChildWeight")
        try fraction(rowSubsample, "rowSubsample")
        try fraction(columnSubsample, "columnSubsample")
        return TreeGrowthParameters(maxDepth: maxDepth, minLossReduction: minLossReduction, minChildWeight: minChildWeight,
                                    l2Regularization: l2Regularization, rowSubsample: rowSubsample, columnSubsample: columnSubsample,
                                    bootstrap: bootstrap, randomSeed: UInt64(bitPattern: Int64(randomSeed)))
    }
}
