import CoreMLSpec
import Foundation
import OpenCoreML
import _OpenCoreMLEngine
import _OpenCoreMLLinear

/// A linear regressor trained on a table (Create ML's `MLLinearRegressor`): least squares with
/// L1 and L2 penalties (elastic net), fitted by L-BFGS, or by OWL-QN when `l1Penalty > 0`.
///
/// ```swift
/// let table = try MLDataTable(contentsOf: URL(fileURLWithPath: "houses.csv"))
/// let regressor = try MLLinearRegressor(trainingData: table, targetColumn: "price")
/// print(regressor.trainingMetrics.rootMeanSquaredError, regressor.validationMetrics.rootMeanSquaredError)
/// try regressor.write(to: URL(fileURLWithPath: "Houses.mlmodel"))
/// ```
///
/// Numeric columns are used as they are, a missing number becomes its column's training mean,
/// String columns are one-hot encoded (see ``LinearTableEncoding``). The written model is a
/// pipeline: a `OneHotEncoder` per String column, a `FeatureVectorizer`, an `Imputer`, then a
/// `GLMRegressor`; its input features are the feature columns by name, its output the target
/// column's name.
///
/// Differences from Create ML: the penalties are relative to the *mean* squared error (see
/// ``ModelParameters``); `featureRescaling` standardizes each encoded column to zero mean and unit
/// variance (Turi Create scaled to unit norm); `stepSize` is not used (a Wolfe line search picks
/// each step); ``iterations`` and the `progress` callback are OpenCoreML additions.
public struct MLLinearRegressor: @unchecked Sendable {
    /// The column whose values it predicts.
    public let targetColumn: String
    /// The columns it reads, in order.
    public let featureColumns: [String]
    /// The options it was trained with.
    public let modelParameters: ModelParameters
    /// RMSE and maximum error on the training rows.
    public let trainingMetrics: MLRegressorMetrics
    /// The same on the validation rows (no examples without validation data).
    public let validationMetrics: MLRegressorMetrics
    /// Every solver iteration's objective and RMSE (an OpenCoreML addition).
    public let iterations: [TabularTrainingIteration]

    let encoding: LinearTableEncoding
    /// The GLM's one weight row and offset, as written.
    let linear: LinearModel

    /// Fits the regressor to `trainingData`'s `targetColumn` (numbers) from `featureColumns`
    /// (default: every other column). `progress` sees every solver iteration; returning false
    /// stops training there, keeping the model so far. Throws `CreateMLError` for out-of-range
    /// parameters (naming the parameter) and for columns or rows that cannot be used (naming them).
    public init(trainingData: MLDataTable, targetColumn: String, featureColumns: [String]? = nil,
                parameters: ModelParameters = ModelParameters(), progress: ((TabularTrainingIteration) -> Bool)? = nil) throws {
        let location = "MLLinearRegressor"
        try parameters.validate(location: location + ".ModelParameters")
        let (training, validation) = try parameters.validation.tables(from: trainingData, location: location + ".ModelParameters")
        let fittedOn: MLDataTable = if case .split = parameters.validation { trainingData } else { training }
        let columns = try TabularColumns(fitting: fittedOn, targetColumn: targetColumn, featureColumns: featureColumns, task: .regression)
        guard training.rowCount > 0 else { throw CreateMLError(location, "the training table has no rows") }
        let encoding = try LinearTableEncoding(columns: columns, training: training)
        let rows = try encoding.rows(training), targets = try columns.encodeTargets(training)
        let validationData = try validation.map { (rows: try encoding.rows($0), targets: try columns.encodeTargets($0)) }

        let solver = LinearRegression(l1: parameters.l1Penalty, l2: parameters.l2Penalty,
                                      solver: QuasiNewtonSettings(maxIterations: parameters.maxIterations,
                                                                  gradientTolerance: parameters.convergenceThreshold),
                                      standardizesFeatures: parameters.featureRescaling)
        let start = Date()
        var iterations: [TabularTrainingIteration] = []
        let fit: LinearRegressionFit
        do {
            fit = try solver.fit(features: rows, featureCount: encoding.width, targets: targets) { step in
                let model = Self.linearModel(step.model())
                let trainingError = Self.meanSquaredError(model, rows: rows, targets: targets)
                let validationError = validationData.map { Self.meanSquaredError(model, rows: $0.rows, targets: $0.targets) }
                let iteration = TabularTrainingIteration(
                    iteration: step.iteration, trainingLoss: step.loss, validationLoss: validationError.map { $0 / 2 },
                    trainingMetric: trainingError.squareRoot(), validationMetric: validationError?.squareRoot(), metric: .rmse,
                    seconds: Date().timeIntervalSince(start))
                iterations.append(iteration)
                return progress?(iteration) ?? true
            }
        } catch let error as SolverError {
            throw CreateMLError("\(location) › \(error.location)", error.message)
        }
        self.targetColumn = targetColumn
        self.featureColumns = columns.featureNames
        modelParameters = parameters
        self.encoding = encoding
        let linear = Self.linearModel(fit.model)
        self.linear = linear
        self.iterations = iterations
        trainingMetrics = try MLRegressorMetrics(targets: targets, predictions: linear.scores(rows: rows))
        validationMetrics = try validationData.map { try MLRegressorMetrics(targets: $0.targets, predictions: linear.scores(rows: $0.rows)) }
            ?? .empty
    }

    /// RMSE and maximum error on `labeledData` (which needs the feature and target columns).
    /// Failures, such as a missing column, land in the metrics' `error` (as Create ML's).
    public func evaluation(on labeledData: MLDataTable) -> MLRegressorMetrics {
        do {
            let targets = try encoding.columns.encodeTargets(labeledData)
            return try MLRegressorMetrics(targets: targets, predictions: linear.scores(rows: try encoding.rows(labeledData)))
        } catch {
            return MLRegressorMetrics(error: error)
        }
    }

    /// The predicted value of every row of `data` (a column of doubles). Throws naming a feature
    /// column `data` lacks.
    public func predictions(from data: MLDataTable) throws -> MLUntypedColumn {
        MLUntypedColumn(linear.scores(rows: try encoding.rows(data)))
    }

    /// The regressor as a Core ML model (the pipeline ``write(to:metadata:)`` writes).
    public var model: MLModel {
        get throws { try MLModel(specification: specification(metadata: nil)) }
    }

    /// Writes the Core ML model to `fileURL` (`.mlmodel`), atomically.
    public func write(to fileURL: URL, metadata: MLModelMetadata? = nil) throws {
        try specification(metadata: metadata).write(to: fileURL)
    }

    /// Writes the Core ML model to the file at `path`.
    public func write(toFile path: String, metadata: MLModelMetadata? = nil) throws {
        try write(to: URL(fileURLWithPath: path), metadata: metadata)
    }

    func specification(metadata: MLModelMetadata?) throws -> CoreML_Specification_Model {
        var glm = CoreML_Specification_GLMRegressor()
        var row = CoreML_Specification_GLMRegressor.DoubleArray()
        row.value = linear.weights
        glm.weights = [row]
        glm.offset = linear.offsets
        glm.postEvaluationTransform = .noTransform
        var final = CoreML_Specification_Model()
        final.glmRegressor = glm
        return try encoding.specification(final: final, trainer: "MLLinearRegressor", metadata: metadata)
    }

    static func linearModel(_ model: LinearRegressionModel) -> LinearModel {
        // One row and one offset: the engine's initializer cannot fail.
        (try? LinearModel(rows: [model.weights], offsets: [model.intercept]))!
    }

    static func meanSquaredError(_ model: LinearModel, rows: [Double], targets: [Double]) -> Double {
        let predictions = model.scores(rows: rows)
        var sum = 0.0
        for (prediction, target) in zip(predictions, targets) { sum += (prediction - target) * (prediction - target) }
        return targets.isEmpty ? 0 : sum / Double(targets.count)
    }
}
