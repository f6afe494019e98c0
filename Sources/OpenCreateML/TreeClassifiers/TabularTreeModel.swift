import CoreMLSpec
import Foundation
import OpenCoreML

/// A tree-ensemble model trained on an `MLDataTable` (an OpenCoreML generic type): the one
/// implementation under the six Create ML tree trainers, which differ only in their `Parameters`
/// (boosted trees, random forest, decision tree) and `Task` (classifier or regressor):
/// ``MLBoostedTreeClassifier`` is `TabularTreeModel<BoostedTreeModelParameters, TreeClassification>`.
///
/// ```swift
/// let table = try MLDataTable(contentsOf: URL(fileURLWithPath: "titanic.csv"))
/// let classifier = try MLBoostedTreeClassifier(trainingData: table, targetColumn: "survived",
///                                              parameters: .init(maxDepth: 4, maxIterations: 50))
/// print(classifier.trainingMetrics.accuracy, classifier.validationMetrics.accuracy)
/// try classifier.write(to: URL(fileURLWithPath: "Titanic.mlmodel"))
/// ```
///
/// A classifier's target column holds String or Int labels (sorted, as Create ML sorts them); a
/// regressor's Int or Double values. Features are numbers and strings: categories split natively,
/// one against the rest (a missing or unseen category is one more "other" category); a missing
/// number goes the way training found best. The written model is a pipeline of a
/// `CategoricalMapping` per String column, a `FeatureVectorizer` and a `TreeEnsembleClassifier` /
/// `TreeEnsembleRegressor` (the tree ensemble alone for a table of numbers), whose outputs are the
/// target column's name (the label or value) and, for a classifier, `<target>Probability`;
/// OpenCoreML predicts with it exactly what ``predictions(from:)`` gives.
public struct TabularTreeModel<Parameters: TreeModelParameters, Task: TreeModelTask>: Sendable {
    public typealias ModelParameters = Parameters

    let trained: TrainedTreeEnsemble

    /// The options the model was trained with.
    public let modelParameters: ModelParameters
    /// The column it predicts.
    public var targetColumn: String { trained.columns.targetColumn }
    /// The columns it reads, in order.
    public var featureColumns: [String] { trained.columns.featureNames }
    /// The metrics on the training rows.
    public var trainingMetrics: Task.Metrics { Task.metrics(trained.trainingMetrics) }
    /// The metrics on the validation rows (with no examples when there were none).
    public var validationMetrics: Task.Metrics { Task.metrics(trained.validationMetrics) }
    /// Each training iteration's metrics (an OpenCoreML addition).
    public var iterations: [TabularTrainingIteration] { trained.iterations }

    /// Trains on `trainingData` to predict `targetColumn` from `featureColumns` (default: every other
    /// column). `progress` (an OpenCoreML addition) receives each iteration's metrics; returning
    /// false stops training, keeping the trees so far. Throws `CreateMLError` naming the parameter
    /// out of range, or the column or row the data cannot be used at.
    public init(trainingData: MLDataTable, targetColumn: String, featureColumns: [String]? = nil,
                parameters: ModelParameters = ModelParameters(), progress: ((TabularTrainingIteration) -> Bool)? = nil) throws {
        trained = try TrainedTreeEnsemble(table: trainingData, targetColumn: targetColumn, featureColumns: featureColumns,
                                          task: Task.kind.task, plan: parameters.trainingPlan(), validation: parameters.validation,
                                          progress: progress)
        modelParameters = parameters
    }

    /// The metrics on `labeledData` (Create ML's: failures are in the metrics' `error`, not thrown).
    public func evaluation(on labeledData: MLDataTable) -> Task.Metrics { Task.metrics(trained.metrics(on: labeledData)) }

    /// The prediction for every row of `data`: labels of the target column's type, or Doubles.
    public func predictions(from data: MLDataTable) throws -> MLUntypedColumn { try trained.predictions(from: data) }

    /// The model as a Core ML model.
    public var model: MLModel {
        get throws { try MLModel(specification: trained.specification(metadata: nil)) }
    }

    /// Writes the Core ML model to `fileURL` (`.mlmodel`), atomically, with `metadata`.
    public func write(to fileURL: URL, metadata: MLModelMetadata? = nil) throws {
        try trained.specification(metadata: metadata).write(to: fileURL)
    }

    /// Writes the Core ML model to the file at `path`.
    public func write(toFile path: String, metadata: MLModelMetadata? = nil) throws {
        try write(to: URL(fileURLWithPath: path), metadata: metadata)
    }
}

/// Whether a ``TabularTreeModel`` classifies or regresses, and the metrics it reports.
public protocol TreeModelTask: Sendable {
    /// `MLClassifierMetrics` or `MLRegressorMetrics`.
    associatedtype Metrics: Sendable
    /// Which task (the contents are internal to OpenCreateML).
    static var kind: TreeModelTaskKind { get }
    /// The task's metrics from a trained ensemble's.
    static func metrics(_ metrics: TreeModelMetrics) -> Metrics
}

/// Which task a ``TreeModelTask`` is (its contents are internal to OpenCreateML).
public struct TreeModelTaskKind: Sendable {
    let task: TabularTask
}

/// A trained ensemble's metrics, as a ``TreeModelTask`` reads them (internal contents).
public struct TreeModelMetrics: Sendable {
    let classifier: MLClassifierMetrics?
    let regressor: MLRegressorMetrics?

    init(classifier: MLClassifierMetrics? = nil, regressor: MLRegressorMetrics? = nil) {
        self.classifier = classifier
        self.regressor = regressor
    }
}

/// Classification: String or Int labels, `MLClassifierMetrics`.
public enum TreeClassification: TreeModelTask {
    public static var kind: TreeModelTaskKind { TreeModelTaskKind(task: .classification) }
    public static func metrics(_ metrics: TreeModelMetrics) -> MLClassifierMetrics {
        metrics.classifier ?? MLClassifierMetrics(classLabels: [], error: CreateMLError("metrics", "a regressor has no classifier metrics"))
    }
}

/// Regression: Int or Double values, `MLRegressorMetrics`.
public enum TreeRegression: TreeModelTask {
    public static var kind: TreeModelTaskKind { TreeModelTaskKind(task: .regression) }
    public static func metrics(_ metrics: TreeModelMetrics) -> MLRegressorMetrics {
        metrics.regressor ?? MLRegressorMetrics(error: CreateMLError("metrics", "a classifier has no regressor metrics"))
    }
}
