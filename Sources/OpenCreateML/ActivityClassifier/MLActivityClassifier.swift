import CoreMLSpec
import Foundation
import OpenCoreML

/// A classifier of motion-sensor recordings, trained as Create ML's `MLActivityClassifier` and Turi
/// Create's activity classifier are: every `predictionWindowSize` consecutive samples of a session
/// get one label, from a convolution over the window, an LSTM across windows and two dense layers.
///
/// ```swift
/// let data = try MLDataTable(contentsOf: URL(fileURLWithPath: "motion.csv"))     // one row per sample
/// let classifier = try MLActivityClassifier(
///     trainingData: data, featureColumns: ["rotX", "rotY", "rotZ", "accX", "accY", "accZ"],
///     labelColumn: "activity", recordingFileColumn: "sessionId",
///     parameters: MLActivityClassifier.ModelParameters(predictionWindowSize: 20))
/// print(classifier.trainingMetrics.accuracy)
/// try classifier.write(to: URL(fileURLWithPath: "GestureClassifier.mlmodel"))
/// ```
///
/// The data is in long format: one row per sample, in time order within each session (sort the
/// table first when it is not). Training follows Turi Create: sessions cut into chunks of 20
/// windows, the last zero-padded and its padding left out of the loss; a window's label is the
/// majority of its samples' labels. The written model has the interface of Turi Create 5's export
/// (the book's `GestureClassifier`) and can be trained further on the device with `MLUpdateTask`.
/// Metrics count rows, as Turi Create's do (each row gets its window's label); per-window metrics
/// are an addition (``windowEvaluation(on:)``).
public struct MLActivityClassifier: Sendable {
    /// The options the classifier was trained with.
    public let modelParameters: ModelParameters
    /// The columns whose values make a sample, in the model's order.
    public let featureColumns: [String]
    /// The column that holds each sample's activity.
    public let labelColumn: String
    /// The column that names each sample's recording (session); nil when the table was one recording.
    public let recordingFileColumn: String?
    /// The activities, sorted (an OpenCoreML addition).
    public let classLabels: [String]
    /// How well the classifier labels the training rows (after training, without dropout).
    public let trainingMetrics: MLClassifierMetrics
    /// Empty without validation sessions.
    public let validationMetrics: MLClassifierMetrics
    /// Every pass over the training data (an OpenCoreML addition).
    public let iterations: [Iteration]
    /// The number of training and validation sessions, and why there are no validation sessions
    /// when there are none (an OpenCoreML addition).
    public let sessionCounts: (training: Int, validation: Int)
    /// Why there is no validation, or nil when there is (an OpenCoreML addition).
    public let validationNote: String?
    /// The classifier as a Core ML model: what ``write(to:metadata:)`` writes.
    public let model: MLModel

    let exportSpecification: CoreML_Specification_Model
    let predictor: ActivityChunkPredictor

    /// The label output's name in the written model (`<labelColumn>`; `<labelColumn>Probability` holds
    /// the probabilities), as Turi Create names them.
    var probabilitiesName: String { labelColumn + "Probability" }

    /// Trains a classifier on `trainingData`.
    ///
    /// - Parameters:
    ///   - trainingData: One row per sample, in time order within each recording.
    ///   - featureColumns: The numeric columns that make a sample; nil for every column but the label
    ///     and recording columns (Turi Create's default).
    ///   - labelColumn: The activity of each sample (strings or integers).
    ///   - recordingFileColumn: The recording (session) of each sample; nil when the table is one recording.
    ///   - parameters: Validation, batch size, iterations and the prediction window.
    ///   - progress: Called after every training step and every pass (an OpenCoreML addition).
    ///   - shouldContinue: Asked after every pass; false ends training there, keeping the model
    ///     trained so far (an OpenCoreML addition: an interrupted training keeps its work).
    /// - Throws: A ``CreateMLError`` naming the parameter, or the row and column of a bad value.
    public init(trainingData: MLDataTable, featureColumns: [String]? = nil, labelColumn: String, recordingFileColumn: String? = nil,
                parameters: ModelParameters = ModelParameters(), progress: (@Sendable (Progress) -> Void)? = nil,
                shouldContinue: (() -> Bool)? = nil) throws {
        try parameters.check()
        let features = featureColumns ?? trainingData.columnNames.filter { $0 != labelColumn && $0 != recordingFileColumn }
        let window = parameters.predictionWindowSize
        var (sessions, classes) = try ActivitySessions.read(
            trainingData, what: "trainingData", featureColumns: features, labelColumn: labelColumn, sessionColumn: recordingFileColumn,
            classes: nil, predictionWindow: window)
        guard classes.count >= 2 else {
            throw CreateMLError("trainingData", "needs at least 2 activities in column '\(labelColumn)', found \(classes.count)\(classes.isEmpty ? "" : ": \(classes[0])")")
        }

        // Validation sessions.
        var validation: [ActivitySession] = []
        var note: String?
        switch parameters.validation {
        case .none:
            note = "no validation data was asked for"
        case .table(let table):
            validation = try ActivitySessions.read(
                table, what: "validationData", featureColumns: features, labelColumn: labelColumn, sessionColumn: recordingFileColumn,
                classes: classes, predictionWindow: window).sessions
        case .split(let strategy):
            (sessions, validation, note) = try Self.split(sessions, strategy, seed: parameters.seed)
        }

        // Training.
        let trainer = try ActivityTrainer(featureCount: features.count, predictionWindow: window, classLabels: classes,
                                          labelName: labelColumn, seed: parameters.seed)
        let chunks = sessions.flatMap { $0.chunks(featureCount: features.count, predictionWindow: window, classCount: classes.count) }
        // The chunks in the data's order every pass, as Turi Create's iterator feeds them (no shuffling).
        let order = Array(chunks.indices)
        let stepsPerIteration = (chunks.count + parameters.batchSize - 1) / parameters.batchSize
        var iterations: [Iteration] = []
        for iteration in 1...parameters.maximumIterations {
            let start = ContinuousClock.now
            let (loss, accuracy) = try trainer.epoch(chunks, order: order, batchSize: parameters.batchSize) { step, loss in
                progress?(.stepFinished(iteration: iteration, step: step, of: stepsPerIteration, loss: loss))
            }
            let elapsed = ContinuousClock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            var validationAccuracy: Double?
            if !validation.isEmpty {
                // Measured with the statistics the model would have if training stopped here (the
                // moving averages themselves for `.recomputed`, which one more pass would cost).
                let statistics = parameters.batchNormStatistics == .biasCorrected
                    ? trainer.biasCorrectedStatistics(steps: stepsPerIteration * iteration) : nil
                let predictor = try ActivityChunkPredictor(specification: trainer.specification(.chunk(steps: ActivityTrainer.steps), statistics: statistics),
                                                           classCount: classes.count, predictionWindow: window, featureCount: features.count)
                validationAccuracy = try Self.windowMetrics(validation, predictor: predictor, classes: classes, labelName: labelColumn).accuracy
            }
            let record = Iteration(iteration: iteration, loss: loss, trainingAccuracy: accuracy, validationAccuracy: validationAccuracy, seconds: seconds)
            iterations.append(record)
            progress?(.iterationFinished(record))
            if let shouldContinue, !shouldContinue() { break }
        }

        // The statistics the model predicts with (see ModelParameters.BatchNormStatistics).
        switch parameters.batchNormStatistics {
        case .recomputed: trainer.recomputeStatistics(chunks, batchSize: parameters.batchSize)
        case .biasCorrected: trainer.setStatistics(trainer.biasCorrectedStatistics(steps: stepsPerIteration * iterations.count))
        case .movingAverage: break
        }

        modelParameters = parameters
        self.featureColumns = features
        self.labelColumn = labelColumn
        self.recordingFileColumn = recordingFileColumn
        classLabels = classes
        self.iterations = iterations
        sessionCounts = (sessions.count, validation.count)
        validationNote = validation.isEmpty ? note : nil
        predictor = try ActivityChunkPredictor(specification: trainer.specification(.chunk(steps: ActivityTrainer.steps)),
                                               classCount: classes.count, predictionWindow: window, featureCount: features.count)
        var userDefined = [
            "type": "ActivityClassifier",
            "prediction_window": String(window),
            "features": features.joined(separator: ","),
            "target": labelColumn,
            "max_iterations": String(parameters.maximumIterations),
            "com.opencoreml.trainer": "OpenCreateML.MLActivityClassifier",
        ]
        if let recordingFileColumn { userDefined["session_id"] = recordingFileColumn }
        exportSpecification = try trainer.specification(.export, userDefined: userDefined)
        model = try MLModel(specification: exportSpecification)
        trainingMetrics = try Self.rowMetrics(sessions, predictor: predictor, classes: classes, labelName: labelColumn)
        validationMetrics = validation.isEmpty
            ? MLClassifierMetrics(classLabels: classes)
            : try Self.rowMetrics(validation, predictor: predictor, classes: classes, labelName: labelColumn)
    }

    // MARK: Evaluation and prediction

    /// The metrics per row on labelled sessions with the training data's columns. As in Create ML this
    /// does not throw: for a missing column, a bad value or an unknown activity, `isValid` is false and
    /// `error` names the row and column.
    public func evaluation(on testingData: MLDataTable) -> MLClassifierMetrics {
        do {
            return try Self.rowMetrics(labelledSessions(testingData), predictor: predictor, classes: classLabels, labelName: labelColumn)
        } catch {
            return MLClassifierMetrics(classLabels: classLabels, error: error)
        }
    }

    /// The metrics per prediction window (each window's true label is the majority of its rows'; an
    /// OpenCoreML addition). Does not throw, like ``evaluation(on:)``.
    public func windowEvaluation(on testingData: MLDataTable) -> MLClassifierMetrics {
        do {
            return try Self.windowMetrics(labelledSessions(testingData), predictor: predictor, classes: classLabels, labelName: labelColumn)
        } catch {
            return MLClassifierMetrics(classLabels: classLabels, error: error)
        }
    }

    /// The predicted activity of every row of `data`, in the table's order (each row gets its
    /// window's label, as in Turi Create). `data` needs the feature columns and, when the classifier
    /// was trained with one, the recording column.
    public func predictions(from data: MLDataTable) throws -> MLUntypedColumn {
        MLUntypedColumn(try rowPredictions(data))
    }

    private func rowPredictions(_ data: MLDataTable) throws -> [String] {
        let sessions = try unlabelledSessions(data)
        var labels = [String](repeating: "", count: data.size.rows)
        for (session, windows) in zip(sessions, try Self.probabilities(sessions, predictor: predictor, labelName: labelColumn)) {
            for (sample, row) in session.rows.enumerated() {
                labels[row] = classLabels[Self.argmax(windows[sample / modelParameters.predictionWindowSize])]
            }
        }
        return labels
    }

    /// The predicted activities, one per row (`perWindowPrediction` false) or one per prediction window
    /// of each session in order (true), as Create ML's `predictions(from:perWindowPrediction:)`.
    public func predictions(from data: MLDataTable, perWindowPrediction: Bool) throws -> [String] {
        if perWindowPrediction { return try windowPredictions(from: data).map(\.label) }
        return try rowPredictions(data)
    }

    /// Every prediction window of every session, with its probabilities (an OpenCoreML addition).
    public func windowPredictions(from data: MLDataTable) throws -> [WindowPrediction] {
        let sessions = try unlabelledSessions(data)
        let window = modelParameters.predictionWindowSize
        var result: [WindowPrediction] = []
        for (session, windows) in zip(sessions, try Self.probabilities(sessions, predictor: predictor, labelName: labelColumn)) {
            for (index, probabilities) in windows.enumerated() {
                let first = index * window
                result.append(WindowPrediction(
                    session: session.id, window: index, firstRow: session.rows[first], rowCount: min(window, session.rows.count - first),
                    label: classLabels[Self.argmax(probabilities)],
                    probabilities: Dictionary(uniqueKeysWithValues: zip(classLabels, probabilities.map(Double.init)))))
            }
        }
        return result
    }

    /// One prediction window's result (an OpenCoreML addition).
    public struct WindowPrediction: Sendable, Equatable {
        /// The session's identifier.
        public var session: String
        /// The window's index in its session (0 for the first).
        public var window: Int
        /// The table row of the window's first sample.
        public var firstRow: Int
        /// The number of samples in the window (fewer than the prediction window only at a session's end).
        public var rowCount: Int
        /// The most probable activity.
        public var label: String
        /// Every activity's probability.
        public var probabilities: [String: Double]
    }

    private func labelledSessions(_ table: MLDataTable) throws -> [ActivitySession] {
        try ActivitySessions.read(table, what: "testingData", featureColumns: featureColumns, labelColumn: labelColumn,
                                  sessionColumn: recordingFileColumn, classes: classLabels,
                                  predictionWindow: modelParameters.predictionWindowSize).sessions
    }

    private func unlabelledSessions(_ table: MLDataTable) throws -> [ActivitySession] {
        let session = recordingFileColumn.flatMap { table.columnNames.contains($0) ? $0 : nil }
        return try ActivitySessions.read(table, what: "data", featureColumns: featureColumns, labelColumn: nil, sessionColumn: session,
                                         classes: classLabels, predictionWindow: modelParameters.predictionWindowSize).sessions
    }

    // MARK: Steps

    /// Sessions set aside by `strategy`: a seeded shuffle of the sessions, never splitting one, the
    /// fraction's share of them rounded (at least one, never all; Turi Create draws each session
    /// with that probability instead). `.automatic` is Turi Create 6's rule
    /// (``automaticValidationFraction(sessions:)``), drawn from `seed` (the model parameters' seed,
    /// as Turi Create draws it from its `random_seed`); `.fixed(ratio:seed:)` draws from its own seed.
    static func split(_ sessions: [ActivitySession], _ strategy: MLSplitStrategy, seed parametersSeed: Int) throws
        -> (training: [ActivitySession], validation: [ActivitySession], note: String?) {
        let ratio: Double, seed: Int
        switch strategy {
        case .automatic:
            guard let fraction = automaticValidationFraction(sessions: sessions.count) else {
                return (sessions, [], "\(sessions.count) sessions, fewer than the 50 an automatic split needs (Turi Create 6's rule)")
            }
            (ratio, seed) = (fraction, parametersSeed)
        case .fixed(let r, let s):
            (ratio, seed) = (r, s)
        }
        guard sessions.count >= 2 else { return (sessions, [], "one session cannot be split") }
        var generator = SplitMix64(seed: UInt64(bitPattern: Int64(seed)))
        let shuffled = sessions.indices.shuffled(using: &generator)
        let count = min(sessions.count - 1, max(1, Int((Double(sessions.count) * ratio).rounded())))
        let held = Set(shuffled.prefix(count))
        return (sessions.indices.filter { !held.contains($0) }.map { sessions[$0] }, sessions.indices.filter(held.contains).map { sessions[$0] }, nil)
    }

    /// The share of `n` sessions Turi Create 6's automatic rule (its C++ `init_data`) holds out for
    /// validation, or nil for none: fewer than 50 sessions, none; from 50, 10 %; from 200, 5 %; from
    /// 200,000, 10,000 sessions. Deliberate difference: from 200,000 sessions Turi Create passes
    /// 10,000 / n as the *training* share (it trains on 10,000 sessions and validates on the rest),
    /// which reads as a slip; this holds out 10,000 sessions instead.
    static func automaticValidationFraction(sessions n: Int) -> Double? {
        switch n {
        case ..<50: nil
        case ..<200: 0.10
        case ..<200_000: 0.05
        default: 10_000 / Double(n)
        }
    }

    /// Each session's windows' probabilities (padding dropped), chunk by chunk.
    static func probabilities(_ sessions: [ActivitySession], predictor: ActivityChunkPredictor, labelName: String) throws -> [[[Float]]] {
        let window = predictor.predictionWindow
        var result: [[[Float]]] = []
        for session in sessions {
            let chunks = session.chunks(featureCount: predictor.featureCount, predictionWindow: window, classCount: predictor.classCount)
            let windows = (session.samples.count + window - 1) / window
            result.append(Array(predictor.probabilities(chunks, probabilitiesName: labelName + "Probability").joined().prefix(windows)))
        }
        return result
    }

    static func argmax(_ values: [Float]) -> Int {
        var best = 0
        for index in values.indices where values[index] > values[best] { best = index }
        return best
    }

    /// Metrics per row: every row gets its window's predicted label.
    static func rowMetrics(_ sessions: [ActivitySession], predictor: ActivityChunkPredictor, classes: [String], labelName: String) throws -> MLClassifierMetrics {
        var truth: [Int] = [], predicted: [Int] = []
        let window = predictor.predictionWindow
        for (session, windows) in zip(sessions, try probabilities(sessions, predictor: predictor, labelName: labelName)) {
            guard let labels = session.labels else { continue }
            for (sample, label) in labels.enumerated() {
                truth.append(label)
                predicted.append(argmax(windows[sample / window]))
            }
        }
        return try MLClassifierMetrics(classLabels: classes, trueLabels: truth, predictedLabels: predicted)
    }

    /// Metrics per window: a window's true label is the majority of its rows'.
    static func windowMetrics(_ sessions: [ActivitySession], predictor: ActivityChunkPredictor, classes: [String], labelName: String) throws -> MLClassifierMetrics {
        var truth: [Int] = [], predicted: [Int] = []
        let window = predictor.predictionWindow
        for (session, windows) in zip(sessions, try probabilities(sessions, predictor: predictor, labelName: labelName)) {
            guard let labels = session.labels else { continue }
            for (index, probabilities) in windows.enumerated() {
                let first = index * window
                truth.append(ActivityChunk.majority(labels[first..<min(first + window, labels.count)], classCount: classes.count))
                predicted.append(argmax(probabilities))
            }
        }
        return try MLClassifierMetrics(classLabels: classes, trueLabels: truth, predictedLabels: predicted)
    }
}
