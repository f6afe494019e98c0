import CoreMLSpec
import Foundation
import OpenCoreML
import OpenCoreMLTools
import _OpenCoreMLLinear

/// A multinomial logistic-regression classifier (Create ML's `MLLogisticRegressionClassifier`),
/// fitted by L-BFGS (OWL-QN under an L1 or elastic-net penalty), trained on a table or on
/// labelled rows of numbers.
///
/// ```swift
/// // On a table, as Create ML (see MLLogisticRegressionClassifier+DataTable.swift).
/// let table = try MLDataTable(contentsOf: URL(fileURLWithPath: "houses.csv"))
/// let sold = try MLLogisticRegressionClassifier(trainingData: table, targetColumn: "sold")
/// try sold.write(to: URL(fileURLWithPath: "Sold.mlmodel"))
///
/// // On labelled rows of numbers (an OpenCoreML addition).
/// let train = try LabeledDataset(contentsOf: URL(fileURLWithPath: "/usr/share/datasets/fashion-mnist"))
/// let classifier = try MLLogisticRegressionClassifier(trainingData: train, parameters: .init(maxIterations: 100, l2Penalty: 1e-4))
/// print(classifier.trainingMetrics.accuracy, classifier.solution.iterations)
/// try classifier.write(to: URL(fileURLWithPath: "Linear.mlmodel"))
/// ```
///
/// Differences from Create ML: the penalties are relative to the *mean* cross-entropy over the
/// rows; `stepSize` is not used (a Wolfe line search picks each step); ``solution`` reports how
/// the solver stopped. A classifier trained on a table is written as Create ML's is: a pipeline of
/// one-hot encoders, a feature vectorizer, an imputer and a `GLMClassifier`. One trained on a
/// ``LabeledDataset`` is written as an updatable neural-network classifier (inner product +
/// softmax), so an app can train it further with `MLUpdateTask`.
public struct MLLogisticRegressionClassifier: @unchecked Sendable {
    /// The training options (Create ML's `MLLogisticRegressionClassifier.ModelParameters`): the
    /// options and defaults the linear regressor has too (``LinearModelParameters``). The penalties
    /// are added to the mean cross-entropy.
    public typealias ModelParameters = LinearModelParameters

    /// How the solver ended (an OpenCoreML addition).
    public struct Solution: Sendable, Encodable {
        /// Iterations run.
        public var iterations: Int
        /// Evaluations of the loss and its gradient (line searches take several per iteration).
        public var evaluations: Int
        /// The penalized mean cross-entropy at the end.
        public var loss: Double
        /// The largest gradient component at the end.
        public var gradientNorm: Double
        /// Why it stopped: `gradientTolerance`, `lossTolerance`, `noProgress`, `maxIterations` or `cancelled`.
        public var stopReason: String
        /// Whether it stopped at a minimum rather than at the iteration limit or on request.
        public var converged: Bool
    }

    /// One L-BFGS iteration, for progress reports.
    public struct Iteration: Sendable {
        /// 1 for the first iteration.
        public var iteration: Int
        /// The penalized mean cross-entropy after the iteration.
        public var loss: Double
        /// The largest gradient component after the iteration.
        public var gradientNorm: Double
    }

    /// The options the classifier was trained with.
    public let modelParameters: ModelParameters
    /// The class names, by class index.
    public let classLabels: [String]
    /// How the solver ended.
    public let solution: Solution
    /// Accuracy and the rest on the training rows.
    public let trainingMetrics: MLClassifierMetrics
    /// The same on the validation rows (no examples without validation data, or when trained on
    /// a ``LabeledDataset``).
    public let validationMetrics: MLClassifierMetrics
    /// The column whose classes it predicts ("label" when trained on a ``LabeledDataset``).
    public let targetColumn: String
    /// The columns it reads, in order (["features"] when trained on a ``LabeledDataset``).
    public let featureColumns: [String]
    /// Every solver iteration's loss and accuracy when trained on a table (an OpenCoreML addition).
    public let iterations: [TabularTrainingIteration]
    let solved: LogisticRegressionModel
    let featureShape: [Int]
    /// The table's encoding and the GLM, when trained on a table.
    let table: LogisticTableFit?

    /// Fits the classifier to `trainingData`: class index i is named `classLabels[i]` (default:
    /// the index as text). `progress` is called after every iteration; returning false stops
    /// training there (the model so far is kept). Throws for out-of-range parameters or data with
    /// fewer than two classes, naming what is wrong.
    public init(trainingData: LabeledDataset, classLabels: [String]? = nil, parameters: ModelParameters = ModelParameters(),
                progress: ((Iteration) -> Bool)? = nil) throws {
        let classCount = max(trainingData.classCount, classLabels?.count ?? 0)
        let labels = classLabels ?? (0..<classCount).map(String.init)
        guard labels.count >= trainingData.classCount else {
            throw CreateMLError(trainingData.name, "labels go up to \(trainingData.classCount - 1), but \(labels.count) class labels were given")
        }
        for (name, value) in [("l1Penalty", parameters.l1Penalty), ("l2Penalty", parameters.l2Penalty)] where !(value >= 0 && value.isFinite) {
            throw CreateMLError("ModelParameters.\(name)", "must be a finite number ≥ 0, got \(value)")
        }
        let solver = LogisticRegression(penalty: parameters.penalty, maxIterations: parameters.maxIterations,
                                        gradientTolerance: parameters.convergenceThreshold, standardizesFeatures: parameters.featureRescaling)
        let fit: LogisticRegressionFit
        do {
            fit = try solver.fit(features: trainingData.values, featureCount: trainingData.featureCount, labels: trainingData.labels,
                                 classCount: labels.count) { step in
                progress?(Iteration(iteration: step.iteration, loss: step.loss, gradientNorm: step.gradientNorm)) ?? true
            }
        } catch let error as SolverError {
            throw CreateMLError(error.location, error.message)
        }
        modelParameters = parameters
        self.classLabels = labels
        solved = fit.model
        featureShape = trainingData.sampleShape
        solution = Solution(iterations: fit.iterations, evaluations: fit.evaluations, loss: fit.loss, gradientNorm: fit.gradientNorm,
                            stopReason: fit.stop.rawValue, converged: fit.stop.isConverged)
        trainingMetrics = try Self.metrics(fit.model, on: trainingData, labels: labels)
        validationMetrics = MLClassifierMetrics(classLabels: labels)
        targetColumn = "label"
        featureColumns = ["features"]
        iterations = []
        table = nil
    }

    /// The metrics on other labelled rows of the same width.
    public func evaluation(on data: LabeledDataset) throws -> MLClassifierMetrics {
        try Self.metrics(solved, on: data, labels: classLabels)
    }

    /// The predicted class index of every row of `data`.
    public func predictions(from data: LabeledDataset) throws -> [Int] {
        guard data.featureCount == solved.featureCount else {
            throw CreateMLError(data.name, "rows of \(data.featureCount) values; the classifier takes \(solved.featureCount)")
        }
        do { return try solved.predict(data.values) } catch let error as SolverError { throw CreateMLError(error.location, error.message) }
    }

    private static func metrics(_ model: LogisticRegressionModel, on data: LabeledDataset, labels: [String]) throws -> MLClassifierMetrics {
        guard data.featureCount == model.featureCount else {
            throw CreateMLError(data.name, "rows of \(data.featureCount) values; the classifier takes \(model.featureCount)")
        }
        let predicted: [Int]
        do { predicted = try model.predict(data.values) } catch let error as SolverError { throw CreateMLError(error.location, error.message) }
        return try MLClassifierMetrics(classLabels: labels, trueLabels: data.labels, predictedLabels: predicted)
    }

    /// The classifier as a Core ML model. Trained on a table: the GLM pipeline (inputs the feature
    /// columns, outputs the target column's name and `<target>Probability`). Trained on a
    /// ``LabeledDataset``: input `features` (a multi-array of the rows' shape), outputs `label`
    /// and `labelProbability`; updatable (inner product + softmax, cross-entropy, SGD).
    public var model: MLModel {
        get throws { try MLModel(specification: specification(metadata: nil)) }
    }

    /// Writes ``model`` to `url` (`.mlmodel` or `.mlmodelc`), atomically, with `metadata`.
    public func write(to url: URL, metadata: MLModelMetadata? = nil) throws {
        try specification(metadata: metadata).write(to: url)
    }

    /// Writes ``model`` to the file at `path`.
    public func write(toFile path: String, metadata: MLModelMetadata? = nil) throws {
        try write(to: URL(fileURLWithPath: path), metadata: metadata)
    }

    func specification(metadata: MLModelMetadata?) throws -> CoreML_Specification_Model {
        if let table { return try table.specification(metadata: metadata) }
        let width = UInt(solved.featureCount)
        var specification = try Model(shortDescription: "Multinomial logistic regression") {
            Input(name: "features", shape: featureShape.count == 1 ? [width] : featureShape.map(UInt.init))
            ClassLabels(classLabels.map(ClassLabel.string), predictedFeatureName: "label", predictedProbabilitiesName: "labelProbability")
            NeuralNetwork(losses: [CategoricalCrossEntropy(name: "loss", input: "labelProbability", target: "labelProbability_true")],
                          optimizer: SGD(learningRateDefault: 0.01, miniBatchSizeDefault: 32, miniBatchSizeRange: [1, 8, 16, 32, 64, 128],
                                         momentumDefault: 0.9),
                          epochDefault: 10, epochRange: 1...1000, shuffle: true) {
                if featureShape.count > 1 {
                    Flatten(name: "flatten", input: ["features"], output: ["flat"], mode: .first)
                }
                InnerProduct(name: "classifier", input: [featureShape.count > 1 ? "flat" : "features"], output: ["logits"],
                             weight: solved.weights, bias: solved.intercepts, inputChannels: width,
                             outputChannels: UInt(classLabels.count), updatable: true)
                Softmax(name: "softmax", input: ["logits"], output: ["labelProbability"])
            }
        }.makeSpecification()
        if let metadata { specification.description_p.metadata = metadata.specification }
        return specification
    }
}
