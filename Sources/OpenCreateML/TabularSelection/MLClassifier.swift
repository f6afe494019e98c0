import Foundation
import OpenCoreML

/// The classifier Create ML picks for a table (Create ML's `MLClassifier`): boosted trees, a random
/// forest, a decision tree and a logistic regression are trained with their default parameters
/// and the one with the best validation accuracy is kept (training accuracy for a table under 50
/// rows; the first of equals in that order).
///
/// ```swift
/// let classifier = try MLClassifier(trainingData: table, targetColumn: "species")
/// if case .boostedTree = classifier { print("boosted trees won") }
/// print(classifier.validationMetrics.accuracy)
/// ```
public enum MLClassifier: Sendable {
    case boostedTree(MLBoostedTreeClassifier)
    case randomForest(MLRandomForestClassifier)
    case decisionTree(MLDecisionTreeClassifier)
    case logisticRegression(MLLogisticRegressionClassifier)

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
            .logisticRegression(try MLLogisticRegressionClassifier(trainingData: training, targetColumn: targetColumn, featureColumns: featureColumns,
                                           parameters: .init(validation: validation))),
        ]
        let useValidation = if case .table = validation { true } else { false }
        self = candidates[TabularModelSelection.best(candidates) {
            (useValidation ? $0.validationMetrics : $0.trainingMetrics).accuracy
        }]
    }

    private var chosen: any TabularCandidate<MLClassifierMetrics> {
        switch self {
        case .boostedTree(let model): return model
        case .randomForest(let model): return model
        case .decisionTree(let model): return model
        case .logisticRegression(let model): return model
        }
    }

    /// The column of labels it predicts.
    public var targetColumn: String { chosen.targetColumn }
    /// The columns it reads, in order.
    public var featureColumns: [String] { chosen.featureColumns }
    /// The chosen classifier's metrics on its training rows.
    public var trainingMetrics: MLClassifierMetrics { chosen.trainingMetrics }
    /// The chosen classifier's metrics on the validation rows.
    public var validationMetrics: MLClassifierMetrics { chosen.validationMetrics }
    /// The chosen classifier's metrics on `labeledData` (failures in the metrics' `error`).
    public func evaluation(on labeledData: MLDataTable) -> MLClassifierMetrics { chosen.evaluation(on: labeledData) }
    /// The predicted label of every row of `data`.
    public func predictions(from data: MLDataTable) throws -> MLUntypedColumn { try chosen.predictions(from: data) }
    /// The chosen classifier as a Core ML model.
    public var model: MLModel {
        get throws { try chosen.model }
    }
    /// Writes the chosen classifier's Core ML model to `fileURL`, atomically.
    public func write(to fileURL: URL, metadata: MLModelMetadata? = nil) throws {
        try chosen.write(to: fileURL, metadata: metadata)
    }
    /// Writes the chosen classifier's Core ML model to the file at `path`.
    public func write(toFile path: String, metadata: MLModelMetadata? = nil) throws {
        try write(to: URL(fileURLWithPath: path), metadata: metadata)
    }
}
