import Foundation
import OpenCoreML

/// The classifier Create ML picks for a table (Create ML's `MLClassifier`): boosted trees, a random
/// forest and a decision tree are trained with their default parameters and the one with the best
/// validation accuracy is kept (see ``TabularModelSelection``).
///
/// ```swift
/// let classifier = try MLClassifier(trainingData: table, targetColumn: "species")
/// if case .boostedTree = classifier { print("boosted trees won") }
/// print(classifier.validationMetrics.accuracy)
/// ```
///
/// Difference from Create ML: the logistic regression candidate is not tried yet (the case is
/// kept for Create ML's spelling once `MLLogisticRegressionClassifier` trains on tables).
public enum MLClassifier: Sendable {
    case boostedTree(MLBoostedTreeClassifier)
    case randomForest(MLRandomForestClassifier)
    case decisionTree(MLDecisionTreeClassifier)

    /// Trains the candidates on `trainingData` and keeps the best. Throws `CreateMLError` naming the
    /// column or row the data cannot be used at.
    public init(trainingData: MLDataTable, targetColumn: String, featureColumns: [String]? = nil) throws {
        let (training, validation) = try TabularModelSelection.validation(for: trainingData)
        let candidates: [MLClassifier] = [
            .boostedTree(try MLBoostedTreeClassifier(trainingData: training, targetColumn: targetColumn, featureColumns: featureColumns,
                                                     parameters: .init(validation: validation))),
            .randomForest(try MLRandomForestClassifier(trainingData: training, targetColumn: targetColumn, featureColumns: featureColumns,
                                                       parameters: .init(validation: validation))),
            .decisionTree(try MLDecisionTreeClassifier(trainingData: training, targetColumn: targetColumn, featureColumns: featureColumns,
                                                       parameters: .init(validation: validation))),
        ]
        let useValidation = if case .table = validation { true } else { false }
        self = candidates[TabularModelSelection.best(candidates) {
            (useValidation ? $0.validationMetrics : $0.trainingMetrics).accuracy
        }]
    }

    private var chosen: TrainedTreeEnsemble {
        switch self {
        case .boostedTree(let classifier): return classifier.trained
        case .randomForest(let classifier): return classifier.trained
        case .decisionTree(let classifier): return classifier.trained
        }
    }

    /// The column of labels it predicts.
    public var targetColumn: String { chosen.columns.targetColumn }
    /// The columns it reads, in order.
    public var featureColumns: [String] { chosen.columns.featureNames }
    /// The chosen classifier's metrics on its training rows.
    public var trainingMetrics: MLClassifierMetrics { chosen.trainingMetrics.classifier }
    /// The chosen classifier's metrics on the validation rows.
    public var validationMetrics: MLClassifierMetrics { chosen.validationMetrics.classifier }
    /// The chosen classifier's metrics on `labeledData` (failures in the metrics' `error`).
    public func evaluation(on labeledData: MLDataTable) -> MLClassifierMetrics { chosen.metrics(on: labeledData).classifier }
    /// The predicted label of every row of `data`.
    public func predictions(from data: MLDataTable) throws -> MLUntypedColumn { try chosen.predictions(from: data) }
    /// The chosen classifier as a Core ML model.
    public var model: MLModel {
        get throws { try MLModel(specification: chosen.specification(metadata: nil)) }
    }
    /// Writes the chosen classifier's Core ML model to `fileURL`, atomically.
    public func write(to fileURL: URL, metadata: MLModelMetadata? = nil) throws {
        try chosen.specification(metadata: metadata).write(to: fileURL)
    }
    /// Writes the chosen classifier's Core ML model to the file at `path`.
    public func write(toFile path: String, metadata: MLModelMetadata? = nil) throws {
        try write(to: URL(fileURLWithPath: path), metadata: metadata)
    }
}
