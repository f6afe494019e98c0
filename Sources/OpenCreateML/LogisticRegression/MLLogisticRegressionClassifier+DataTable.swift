import CoreMLSpec
import Foundation
import OpenCoreML
import _OpenCoreMLEngine
import _OpenCoreMLLinear

extension MLLogisticRegressionClassifier {
    /// Fits the classifier to `trainingData`'s `targetColumn` (String or Int classes, sorted as
    /// Create ML sorts them) from `featureColumns` (default: every other column), as Create ML's
    /// initializer: numeric columns as they are, a missing number as its column's training mean,
    /// String columns one-hot (``LinearTableEncoding``). `progress` sees every solver iteration;
    /// returning false stops training there, keeping the model so far. Throws `CreateMLError` for
    /// out-of-range parameters (naming the parameter) and for columns or rows that cannot be used.
    public init(trainingData: MLDataTable, targetColumn: String, featureColumns: [String]? = nil,
                parameters: ModelParameters = ModelParameters(), progress: ((TabularTrainingIteration) -> Bool)? = nil) throws {
        let location = "MLLogisticRegressionClassifier"
        try parameters.validate(location: location + ".ModelParameters")
        let (training, validation) = try parameters.validation.tables(from: trainingData, location: location + ".ModelParameters")
        // A split's classes and categories come from the whole table (a class only in the
        // validation rows is still a class); a separate validation table must match the training one.
        let fittedOn: MLDataTable = if case .split = parameters.validation { trainingData } else { training }
        let columns = try TabularColumns(fitting: fittedOn, targetColumn: targetColumn, featureColumns: featureColumns, task: .classification)
        guard case .classes(let labels) = columns.target else { throw CreateMLError(location, "the target column holds no classes") }
        guard training.rowCount > 0 else { throw CreateMLError(location, "the training table has no rows") }
        try columns.checkRows(trainingData, validation: parameters.validation)
        try columns.checkLinearFits(rows: training.rowCount + (validation?.rowCount ?? 0))
        // Per class: a probability per row, and a weight per column in the solver's model, gradient
        // and ten pairs of curvature history.
        try columns.checkClassesFit(classes: labels.count, cellsPerClass: training.rowCount + (validation?.rowCount ?? 0) + 24 * columns.linearWidth,
                                    bytesPerCell: 8, trainer: "a logistic regression")
        let encoding = try LinearTableEncoding(columns: columns, training: training)
        let rows = try encoding.rows(training), targets = try columns.encodeTargets(training).map { Int($0) }
        let validationData = try validation.map { (rows: try encoding.rows($0), targets: try columns.encodeTargets($0).map { Int($0) }) }

        // With two classes the penalties are on the logistic model's one weight vector w = W₁ − W₀
        // (as scikit-learn's binary LogisticRegression and Turi Create's): the softmax solver's
        // optimum has W₀ = −W₁, where (λ₂/2)(‖W₀‖² + ‖W₁‖²) = (λ₂/4)‖w‖² and λ₁(‖W₀‖₁ + ‖W₁‖₁) = λ₁‖w‖₁,
        // so it runs with λ₂ doubled. Training stops at the gradient threshold, the iteration limit,
        // or when no step lowers the loss (no relative-decrease test: with float32 logits it would
        // stop early on badly scaled columns).
        var penalized = parameters
        if labels.count == 2 { penalized.l2Penalty *= 2 }
        let solver = LogisticRegression(penalty: penalized.penalty, maxIterations: parameters.maxIterations,
                                        gradientTolerance: parameters.convergenceThreshold, relativeLossTolerance: 0, standardizesFeatures: parameters.featureRescaling)
        let start = Date()
        var iterations: [TabularTrainingIteration] = []
        let fit: LogisticRegressionFit
        do {
            fit = try solver.fit(features: rows.map { Float($0) }, featureCount: encoding.width, labels: targets, classCount: labels.count) { step in
                let glm = LogisticTableFit.glm(step.model())
                let trainingScore = LogisticTableFit.score(glm, classCount: labels.count, rows: rows, targets: targets)
                let validationScore = validationData.map { LogisticTableFit.score(glm, classCount: labels.count, rows: $0.rows, targets: $0.targets) }
                let iteration = TabularTrainingIteration(
                    iteration: step.iteration, trainingLoss: step.loss, validationLoss: validationScore?.crossEntropy,
                    trainingMetric: trainingScore.accuracy, validationMetric: validationScore?.accuracy, metric: .accuracy,
                    seconds: Date().timeIntervalSince(start))
                iterations.append(iteration)
                return progress?(iteration) ?? true
            }
        } catch let error as SolverError {
            throw CreateMLError("\(location) › \(error.location)", error.message)
        }
        let table = LogisticTableFit(encoding: encoding, labels: labels, linear: LogisticTableFit.glm(fit.model))
        modelParameters = parameters
        classLabels = labels.descriptions
        solution = Solution(iterations: fit.iterations, evaluations: fit.evaluations, loss: fit.loss, gradientNorm: fit.gradientNorm,
                            stopReason: fit.stop.rawValue, converged: fit.stop.isConverged)
        trainingMetrics = try table.metrics(rows: rows, targets: targets)
        validationMetrics = try validationData.map { try table.metrics(rows: $0.rows, targets: $0.targets) }
            ?? MLClassifierMetrics(classLabels: labels.descriptions)
        self.targetColumn = targetColumn
        self.featureColumns = columns.featureNames
        self.iterations = iterations
        solved = fit.model
        featureShape = [encoding.width]
        self.table = table
    }

    /// Accuracy, the confusion matrix and the rest on `labeledData` (which needs the feature and
    /// target columns) for a classifier trained on a table. Failures, such as a missing column or
    /// a class the training rows did not have, land in the metrics' `error` (as Create ML's).
    public func evaluation(on labeledData: MLDataTable) -> MLClassifierMetrics {
        guard let table else {
            return MLClassifierMetrics(classLabels: classLabels,
                                       error: CreateMLError("MLLogisticRegressionClassifier", "trained on a LabeledDataset; evaluate it on one"))
        }
        do {
            let targets = try table.encoding.columns.encodeTargets(labeledData).map { Int($0) }
            return try table.metrics(rows: try table.encoding.rows(labeledData), targets: targets)
        } catch {
            return MLClassifierMetrics(classLabels: classLabels, error: error)
        }
    }

    /// The predicted class of every row of `data`: a column of the target's type (String or
    /// Int), the most probable class (the first on ties, as the written model). Throws naming a
    /// feature column `data` lacks, or when the classifier was trained on a ``LabeledDataset``.
    public func predictions(from data: MLDataTable) throws -> MLUntypedColumn {
        guard let table else { throw CreateMLError("MLLogisticRegressionClassifier", "trained on a LabeledDataset; predict from one") }
        let probabilities = table.probabilities(rows: try table.encoding.rows(data))
        return table.labels.column(LogisticTableFit.mostProbable(probabilities, classCount: table.labels.count))
    }
}

/// A logistic classifier trained on a table, as written: the GLM's weight rows and the table's
/// encoding, predicting exactly as the exported pipeline (the engine's `LinearModel` and
/// `LinearClassifierProbabilities`, which the `GLMClassifier` runner uses).
///
/// The GLM uses the reference-class encoding with the logit link: K − 1 weight rows, row k − 1
/// scoring class k against class 0 (class k's weights and intercept minus class 0's). For two
/// classes that is the exact logistic model (P(class 1) = σ(s)). For more classes it is the
/// multinomial logit with class 0's score fixed at 0, P(k) = eˢᵏ / (1 + Σⱼ eˢʲ), which is the
/// softmax of the fitted scores reparametrized. Core ML's `GLMClassifier.proto` says only "first
/// class is the reference class"; coremltools' converters never write more than two classes this
/// way (its scikit-learn converter writes one-vs-rest), but Turi Create — Create ML's predecessor —
/// exports its multinomial logistic classifier exactly so (`linear_models_exporter.cpp`: one weight
/// row per class but the first, in a `GLMClassifier` with the default `ReferenceClass` encoding), so
/// Core ML reads these models as the multinomial logit; OpenCoreML's runner does.
struct LogisticTableFit: Sendable {
    let encoding: LinearTableEncoding
    let labels: TabularClassLabels
    /// K − 1 rows: class k's weights minus class 0's; offsets likewise.
    let linear: LinearModel

    static func glm(_ model: LogisticRegressionModel) -> LinearModel {
        let d = model.featureCount, k = model.classCount
        var rows: [[Double]] = [], offsets: [Double] = []
        for c in 1..<k {
            rows.append((0..<d).map { Double(model.weights[c * d + $0]) - Double(model.weights[$0]) })
            offsets.append(Double(model.intercepts[c]) - Double(model.intercepts[0]))
        }
        // Rows of one width and one offset per row: the engine's initializer cannot fail.
        return (try? LinearModel(rows: rows, offsets: offsets))!
    }

    /// The K class probabilities of every row, row-major (rows × K) in one buffer.
    func probabilities(rows: [Double]) -> [Double] {
        Self.probabilities(linear, classCount: labels.count, rows: rows)
    }

    static func probabilities(_ linear: LinearModel, classCount: Int, rows: [Double]) -> [Double] {
        let scores = linear.scores(rows: rows), width = linear.outputCount
        var result: [Double] = []
        result.reserveCapacity(width == 0 ? 0 : scores.count / width * classCount)
        scores.withUnsafeBufferPointer { scores in
            for base in stride(from: 0, to: scores.count, by: width) {
                result.append(contentsOf: LinearClassifierProbabilities.probabilities(
                    scores: UnsafeBufferPointer(rebasing: scores[base..<(base + width)]), classCount: classCount,
                    encoding: .referenceClass, link: .logistic))
            }
        }
        return result
    }

    /// Per row of `probabilities` (rows × `classCount`), the most probable class, the first on ties.
    static func mostProbable(_ probabilities: [Double], classCount: Int) -> [Int] {
        stride(from: 0, to: probabilities.count, by: classCount).map { base in
            var best = 0
            for c in 1..<classCount where probabilities[base + c] > probabilities[base + best] { best = c }
            return best
        }
    }

    /// Accuracy and mean cross-entropy of `rows` against class indices.
    static func score(_ linear: LinearModel, classCount: Int, rows: [Double], targets: [Int]) -> (accuracy: Double, crossEntropy: Double) {
        score(probabilities(linear, classCount: classCount, rows: rows), classCount: classCount, targets: targets)
    }

    static func score(_ probabilities: [Double], classCount: Int, targets: [Int]) -> (accuracy: Double, crossEntropy: Double) {
        guard !targets.isEmpty else { return (0, 0) }
        var correct = 0, loss = 0.0
        for (row, predicted) in mostProbable(probabilities, classCount: classCount).enumerated() {
            let target = targets[row]
            if predicted == target { correct += 1 }
            loss -= Foundation.log(max(probabilities[row * classCount + target], Double.leastNormalMagnitude))
        }
        return (Double(correct) / Double(targets.count), loss / Double(targets.count))
    }

    func metrics(rows: [Double], targets: [Int]) throws -> MLClassifierMetrics {
        let probabilities = probabilities(rows: rows)
        let crossEntropy = Self.score(probabilities, classCount: labels.count, targets: targets).crossEntropy
        return try MLClassifierMetrics(classLabels: labels.descriptions, trueLabels: targets,
                                       predictedLabels: Self.mostProbable(probabilities, classCount: labels.count),
                                       meanCrossEntropy: targets.isEmpty ? nil : crossEntropy)
    }

    /// The written model: the shared front, then a `GLMClassifier` (reference class, logit).
    func specification(metadata: MLModelMetadata?) throws -> CoreML_Specification_Model {
        var glm = CoreML_Specification_GLMClassifier()
        glm.weights = (0..<linear.outputCount).map { row in
            var array = CoreML_Specification_GLMClassifier.DoubleArray()
            array.value = Array(linear.weights[(row * linear.width)..<((row + 1) * linear.width)])
            return array
        }
        glm.offset = linear.offsets
        glm.postEvaluationTransform = .logit
        glm.classEncoding = .referenceClass
        switch labels {
        case .strings(let names):
            var vector = CoreML_Specification_StringVector()
            vector.vector = names
            glm.stringClassLabels = vector
        case .ints(let values):
            var vector = CoreML_Specification_Int64Vector()
            vector.vector = values.map(Int64.init)
            glm.int64ClassLabels = vector
        }
        var final = CoreML_Specification_Model()
        final.glmClassifier = glm
        return try encoding.specification(final: final, trainer: "MLLogisticRegressionClassifier", metadata: metadata)
    }
}
