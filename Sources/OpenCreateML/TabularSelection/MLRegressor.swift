import Foundation
import OpenCoreML

/// The regressor Create ML picks for a table (Create ML's `MLRegressor`): boosted trees, a random
/// forest, a decision tree and a linear regression are trained with their default parameters and
/// the one with the lowest validation RMSE is kept (training RMSE for a table under 50 rows; the
/// first of equals in that order).
public enum MLRegressor: Sendable {
    case boostedTree(MLBoostedTreeRegressor)
    case randomForest(MLRandomForestRegressor)
    case decisionTree(MLDecisionTreeRegressor)
    case linear(MLLinearRegressor)

    /// Trains the candidates on `trainingData` and keeps the best. Throws `CreateMLError` naming the
    /// column or row the data cannot be used at.
    public init(trainingData: MLDataTable, targetColumn: String, featureColumns: [String]? = nil) throws {
        let (training, validation) = try TabularModelSelection.validation(for: trainingData)
        let candidates: [MLRegressor] = [
            .boostedTree(try MLBoostedTreeRegressor(trainingData: training, targetColumn: targetColumn, featureColumns: featureColumns,
                                                    parameters: .init(validation: validation))),
            .randomForest(try MLRandomForestRegressor(trainingData: training, targetColumn: targetColumn, featureColumns: featureColumns,
                                                      parameters: .init(validation: validation))),
            .decisionTree(try MLDecisionTreeRegressor(trainingData: training, targetColumn: targetColumn, featureColumns: featureColumns,
                                                      parameters: .init(validation: validation))),
            .linear(try MLLinearRegressor(trainingData: training, targetColumn: targetColumn, featureColumns: featureColumns,
                                           parameters: .init(validation: validation))),
        ]
        let useValidation = if case .table = validation { true } else { false }
        self = candidates[TabularModelSelection.best(candidates) {
            -(useValidation ? $0.validationMetrics : $0.trainingMetrics).rootMeanSquaredError
        }]
    }

    private var chosen: any TabularCandidate<MLRegressorMetrics> {
        switch self {
        case .boostedTree(let model): return model
        case .randomForest(let model): return model
        case .decisionTree(let model): return model
        case .linear(let model): return model
        }
    }

    /// The column of values it predicts.
    public var targetColumn: String { chosen.targetColumn }
    /// The columns it reads, in order.
    public var featureColumns: [String] { chosen.featureColumns }
    /// The chosen regressor's metrics on its training rows.
    public var trainingMetrics: MLRegressorMetrics { chosen.trainingMetrics }
    /// The chosen regressor's metrics on the validation rows.
    public var validationMetrics: MLRegressorMetrics { chosen.validationMetrics }
    /// The chosen regressor's metrics on `labeledData` (failures in the metrics' `error`).
    public func evaluation(on labeledData: MLDataTable) -> MLRegressorMetrics { chosen.evaluation(on: labeledData) }
    /// The predicted value of every row of `data`.
    public func predictions(from data: MLDataTable) throws -> MLUntypedColumn { try chosen.predictions(from: data) }
    /// The chosen regressor as a Core ML model.
    public var model: MLModel {
        get throws { try chosen.model }
    }
    /// Writes the chosen regressor's Core ML model to `fileURL`, atomically.
    public func write(to fileURL: URL, metadata: MLModelMetadata? = nil) throws {
        try chosen.write(to: fileURL, metadata: metadata)
    }
    /// Writes the chosen regressor's Core ML model to the file at `path`.
    public func write(toFile path: String, metadata: MLModelMetadata? = nil) throws {
        try write(to: URL(fileURLWithPath: path), metadata: metadata)
    }
}
