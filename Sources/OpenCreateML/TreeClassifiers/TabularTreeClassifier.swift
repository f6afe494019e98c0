import CoreMLSpec
import Foundation
import OpenCoreML

/// A tree-ensemble classifier trained on an `MLDataTable` (an OpenCoreML generic type): the one
/// implementation under ``MLBoostedTreeClassifier``, ``MLRandomForestClassifier`` and
/// ``MLDecisionTreeClassifier``, which differ only in their `ModelParameters`.
///
/// ```swift
/// let table = try MLDataTable(contentsOf: URL(fileURLWithPath: "titanic.csv"))
/// let classifier = try MLBoostedTreeClassifier(trainingData: table, targetColumn: "survived",
///                                              parameters: .init(maxDepth: 4, maxIterations: 50))
/// print(classifier.trainingMetrics.accuracy, classifier.validationMetrics.accuracy)
/// try classifier.write(to: URL(fileURLWithPath: "Titanic.mlmodel"))
/// ```
///
/// The target column holds String or Int labels (sorted, as Create ML sorts them); features are
/// numbers and strings (categories split natively, one against the rest; missing values go the way
/// training found best). The written model is a pipeline of a `CategoricalMapping` per String
/// column, a `FeatureVectorizer` and a `TreeEnsembleClassifier` (the tree ensemble alone for a
/// table of numbers), whose outputs are the target column's name (the label) and
/// `<target>Probability` (the probabilities by label); OpenCoreML predicts with it exactly what
/// ``predictions(from:)`` gives.
public struct TabularTreeClassifier<Parameters: TreeModelParameters>: Sendable {
    public typealias ModelParameters = Parameters

    let trained: TrainedTreeEnsemble

    /// The options the classifier was trained with.
    public let modelParameters: ModelParameters
    /// The column of labels it predicts.
    public var targetColumn: String { trained.columns.targetColumn }
    /// The columns it reads, in order.
    public var featureColumns: [String] { trained.columns.featureNames }
    /// The metrics on the training rows.
    public var trainingMetrics: MLClassifierMetrics { trained.trainingMetrics.classifier }
    /// The metrics on the validation rows (with no examples when there were none).
    public var validationMetrics: MLClassifierMetrics { trained.validationMetrics.classifier }
    /// Each training iteration's metrics (an OpenCoreML addition).
    public var iterations: [TabularTrainingIteration] { trained.iterations }

    /// Trains on `trainingData` to predict `targetColumn` from `featureColumns` (default: every other
    /// column). `progress` (an OpenCoreML addition) receives each iteration's metrics; returning
    /// false stops training, keeping the trees so far. Throws `CreateMLError` naming the parameter
    /// out of range, or the column or row the data cannot be used at.
    public init(trainingData: MLDataTable, targetColumn: String, featureColumns: [String]? = nil,
                parameters: ModelParameters = ModelParameters(), progress: ((TabularTrainingIteration) -> Bool)? = nil) throws {
        trained = try TrainedTreeEnsemble(table: trainingData, targetColumn: targetColumn, featureColumns: featureColumns,
                                          task: .classification, plan: parameters.trainingPlan(), validation: parameters.validation,
                                          progress: progress)
        modelParameters = parameters
    }

    /// The metrics on `labeledData` (Create ML's: failures are in the metrics' `error`, not thrown).
    public func evaluation(on labeledData: MLDataTable) -> MLClassifierMetrics { trained.metrics(on: labeledData).classifier }

    /// The predicted label of every row of `data`, of the target column's type.
    public func predictions(from data: MLDataTable) throws -> MLUntypedColumn { try trained.predictions(from: data) }

    /// The classifier as a Core ML model.
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

/// A regressor's counterpart of ``TabularTreeClassifier``: the one implementation under
/// ``MLBoostedTreeRegressor``, ``MLRandomForestRegressor`` and ``MLDecisionTreeRegressor``. The
/// target column holds Int or Double values; the written model's output is a Double named as the
/// target column (a `TreeEnsembleRegressor`, after the same front as the classifier's).
public struct TabularTreeRegressor<Parameters: TreeModelParameters>: Sendable {
    public typealias ModelParameters = Parameters

    let trained: TrainedTreeEnsemble

    /// The options the regressor was trained with.
    public let modelParameters: ModelParameters
    /// The column of values it predicts.
    public var targetColumn: String { trained.columns.targetColumn }
    /// The columns it reads, in order.
    public var featureColumns: [String] { trained.columns.featureNames }
    /// The metrics on the training rows.
    public var trainingMetrics: MLRegressorMetrics { trained.trainingMetrics.regressor }
    /// The metrics on the validation rows (with no examples when there were none).
    public var validationMetrics: MLRegressorMetrics { trained.validationMetrics.regressor }
    /// Each training iteration's metrics (an OpenCoreML addition).
    public var iterations: [TabularTrainingIteration] { trained.iterations }

    /// Trains on `trainingData` to predict `targetColumn` from `featureColumns` (default: every other
    /// column); see ``TabularTreeClassifier/init(trainingData:targetColumn:featureColumns:parameters:progress:)``.
    public init(trainingData: MLDataTable, targetColumn: String, featureColumns: [String]? = nil,
                parameters: ModelParameters = ModelParameters(), progress: ((TabularTrainingIteration) -> Bool)? = nil) throws {
        trained = try TrainedTreeEnsemble(table: trainingData, targetColumn: targetColumn, featureColumns: featureColumns,
                                          task: .regression, plan: parameters.trainingPlan(), validation: parameters.validation,
                                          progress: progress)
        modelParameters = parameters
    }

    /// The metrics on `labeledData` (Create ML's: failures are in the metrics' `error`, not thrown).
    public func evaluation(on labeledData: MLDataTable) -> MLRegressorMetrics { trained.metrics(on: labeledData).regressor }

    /// The predicted value of every row of `data` (Doubles).
    public func predictions(from data: MLDataTable) throws -> MLUntypedColumn { try trained.predictions(from: data) }

    /// The regressor as a Core ML model.
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

extension TrainedTreeEnsemble.TabularMetrics {
    var classifier: MLClassifierMetrics {
        if case .classifier(let metrics) = self { return metrics }
        return MLClassifierMetrics(classLabels: [], error: CreateMLError("metrics", "a regressor has no classifier metrics"))
    }

    var regressor: MLRegressorMetrics {
        if case .regressor(let metrics) = self { return metrics }
        return MLRegressorMetrics(error: CreateMLError("metrics", "a classifier has no regressor metrics"))
    }
}
