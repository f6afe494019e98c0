import ArgumentParser
import Foundation
import OpenCoreML
import OpenCreateML

/// `opencoreml activity-classifier train|evaluate|predict`: Turi Create's activity classifier
/// (`MLActivityClassifier`) on motion recordings in long-format CSV files.
struct ActivityClassifier: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "activity-classifier",
        abstract: "Train, evaluate and run an activity classifier on motion recordings (CSV, one row per sample).",
        discussion: """
            DATA.csv has a header and one row per sample: a session (recording) column, the feature columns, a label \
            column and, optionally, a time column to sort each session by. The model labels every --prediction-window \
            consecutive samples of a session.
            """,
        subcommands: [Train.self, Evaluate.self, Predict.self]
    )

    struct Train: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Train an activity classifier and write it as an updatable .mlmodel with Turi Create's interface (the book's GestureClassifier).")

        @Argument(help: "The training recordings (CSV).")
        var data: String

        @Option(help: "Comma-separated feature columns (default: every column but the session, label and time columns).")
        var features: String?

        @OptionGroup var columns: RecordingColumns

        @Option(help: "Samples per prediction.")
        var predictionWindow: Int

        @Option(help: "Validation recordings (CSV, same columns).")
        var validation: String?

        @Option(help: "Hold out this fraction of the sessions for validation instead (0 < f < 1). Without either, Turi Create 6's rule: none below 50 sessions, 10 % from 50, 5 % from 200.")
        var validationFraction: Double?

        @Flag(help: "Train without validation sessions, whatever their number.")
        var noValidation = false

        @Option(help: "Passes over the training data.")
        var maxIterations = 10

        @Option(help: "Chunks of 20 windows per training step.")
        var batchSize = 32

        @Option(help: "Seeds the initial weights, the dropout masks and the validation split (automatic or --validation-fraction).")
        var seed = 0

        @Option(help: "The batchnorm statistics the model predicts with: bias-corrected (Turi Create's moving averages with their start divided out, the default), recomputed (one more pass with the final weights), or moving-average (Turi Create's recipe exactly).")
        var batchnormStatistics: String = "bias-corrected"

        @Option(name: .shortAndLong, help: "The .mlmodel to write.")
        var output: String

        @Option(help: ArgumentHelp("Also write one JSON line per iteration (iteration, loss, training accuracy, seconds).", valueName: "file.jsonl"))
        var log: String?

        @Option(name: .customLong("loss-curve"), help: ArgumentHelp("Also chart the loss and accuracy per iteration: FILE.svg, FILE.png or FILE.pdf (by the extension).", valueName: "file"),
                transform: ChartFormat.checkedPath)
        var lossCurve: String?

        func validate() throws {
            if [validation != nil, validationFraction != nil, noValidation].filter({ $0 }).count > 1 {
                throw ValidationError("give one of --validation, --validation-fraction and --no-validation")
            }
        }

        func run() throws {
            try checkOutputs(output, lossCurve, log)
            guard output.hasSuffix(".mlmodel") else { throw CLIError.unsupportedExtension(path: output) }
            let training = try CSVFileTable(path: data, timeColumn: columns.timeColumn)
            var parameters = MLActivityClassifier.ModelParameters(
                validation: .split(strategy: validationFraction.map { .fixed(ratio: $0, seed: seed) } ?? .automatic),
                batchSize: batchSize, maximumIterations: maxIterations, predictionWindowSize: predictionWindow)
            parameters.seed = seed
            guard let statistics = MLActivityClassifier.ModelParameters.BatchNormStatistics(rawValue: batchnormStatistics) else {
                throw ValidationError("--batchnorm-statistics must be one of \(MLActivityClassifier.ModelParameters.BatchNormStatistics.allCases.map(\.rawValue).joined(separator: ", ")), not '\(batchnormStatistics)'")
            }
            parameters.batchNormStatistics = statistics
            if noValidation { parameters.validation = .none }
            var validationTable: CSVFileTable?
            if let validation {
                validationTable = try CSVFileTable(path: validation, timeColumn: columns.timeColumn)
                parameters.validation = .table(validationTable!.table)
            }
            let featureColumns = features.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
                ?? training.columns.filter { ![columns.labelColumn, columns.sessionColumn, columns.timeColumn].contains($0) }

            let progress = IterationProgress(iterations: maxIterations, samplesPerStep: batchSize * 20 * predictionWindow,
                                             log: try log.map { try TrainingLog(path: $0) })
            let classifier: MLActivityClassifier
            do {
                classifier = try MLActivityClassifier(trainingData: training.table, featureColumns: featureColumns, labelColumn: columns.labelColumn,
                                                      recordingFileColumn: columns.sessionColumn, parameters: parameters, progress: progress.handle)
            } catch {
                throw training.locate(error, validation: validationTable)
            }
            let counts = classifier.sessionCounts
            print("\(classifier.classLabels.count) activities: \(classifier.classLabels.joined(separator: " "))   \(featureColumns.count) features: \(featureColumns.joined(separator: ","))")
            print("\(counts.training) training sessions, " + (counts.validation > 0 ? "\(counts.validation) validation sessions" : "no validation (\(classifier.validationNote ?? "none"))"))
            if let error = progress.logError { throw error }
            var table = TextTable(["iteration", "loss", "training accuracy", "validation accuracy", "seconds"], alignments: [.right, .right, .right, .right, .right])
            for step in classifier.iterations {
                table.append([String(step.iteration), String(format: "%.4f", step.loss), percent(step.trainingAccuracy), step.validationAccuracy.map(percent) ?? "–",
                              String(format: "%.3f", step.seconds)])
            }
            print(table.render())
            print("(accuracy per window; training accuracy from the training passes, with dropout)")
            print("training accuracy per row \(percent(classifier.trainingMetrics.accuracy)) (\(grouped(classifier.trainingMetrics.exampleCount)) rows)"
                  + (counts.validation > 0 ? "   validation accuracy per row \(percent(classifier.validationMetrics.accuracy)) (\(grouped(classifier.validationMetrics.exampleCount)) rows)" : ""))
            if let lossCurve {
                let accuracy = classifier.iterations.map(\.trainingAccuracy)
                try writeChart(to: lossCurve) {
                    LossCurveChart.make(loss: classifier.iterations.map(\.loss), accuracy: accuracy,
                                        title: "Activity classifier: loss and training accuracy per iteration", metrics: $0)
                }
            }
            try CLIError.wrapping { try classifier.write(to: URL(fileURLWithPath: output)) }
            print("wrote \(output)")
        }
    }

    struct Evaluate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Evaluate an activity classifier .mlmodel on labelled recordings: accuracy per row and per window, per-class table, confusion matrix.",
            discussion: "The feature columns and the prediction window come from the model's metadata; predictions carry the LSTM state from window to window, as in training.")

        @Argument(help: "The activity classifier (.mlmodel), as 'activity-classifier train' or Turi Create writes it.")
        var model: String

        @Argument(help: "The labelled recordings (CSV).")
        var data: String

        @OptionGroup var columns: RecordingColumns

        @Flag(help: "Print one JSON object instead of tables.")
        var json = false

        @Option(name: .customLong("confusion-matrix"), help: ArgumentHelp("Also write the per-row confusion matrix as a heat map: FILE.svg, FILE.png or FILE.pdf (by the extension).", valueName: "file"),
                transform: ChartFormat.checkedPath)
        var confusionMatrix: String?

        func run() throws {
            try checkOutputs(confusionMatrix)
            let loaded = try loadModel(model)
            let table = try CSVFileTable(path: data, timeColumn: columns.timeColumn)
            let metrics: (perRow: MLClassifierMetrics, perWindow: MLClassifierMetrics)
            do {
                metrics = try MLActivityClassifier.evaluation(model: loaded, on: table.table, labelColumn: columns.labelColumn, recordingFileColumn: columns.sessionColumn)
            } catch {
                throw table.locate(error)
            }
            if let confusionMatrix {
                try writeChart(to: confusionMatrix) {
                    ConfusionMatrixChart.make(metrics.perRow, title: "\(URL(fileURLWithPath: model).lastPathComponent) on \(URL(fileURLWithPath: data).lastPathComponent) (rows)", text: $0)
                }
            }
            if json {
                try printJSON(ActivityEvaluationJSON(perRow: EvaluationJSON(metrics.perRow), perWindow: EvaluationJSON(metrics.perWindow)))
                return
            }
            print("\(data): \(grouped(metrics.perRow.exampleCount)) rows, \(grouped(metrics.perWindow.exampleCount)) windows")
            print("accuracy per row \(percent(metrics.perRow.accuracy))   per window \(percent(metrics.perWindow.accuracy))")
            print("")
            print("per row")
            print(metrics.perRow.renderText())
        }
    }

    struct Predict: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Label every prediction window of recordings with an activity classifier .mlmodel, streaming each session with the LSTM state.")

        @Argument(help: "The activity classifier (.mlmodel).")
        var model: String

        @Argument(help: "The recordings (CSV).")
        var data: String

        @Option(help: "The session (recording) column; without it the file is one session.")
        var sessionColumn: String?

        @Option(help: "A column to sort each session's samples by.")
        var timeColumn: String?

        @Flag(help: "Print JSON lines, one object per window, instead of a table.")
        var json = false

        func run() throws {
            let loaded = try loadModel(model)
            let table = try CSVFileTable(path: data, timeColumn: timeColumn)
            let windows: [MLActivityClassifier.WindowPrediction]
            do {
                windows = try MLActivityClassifier.windowPredictions(model: loaded, from: table.table, recordingFileColumn: sessionColumn)
            } catch {
                throw table.locate(error)
            }
            let classes = (loaded.modelDescription.classLabels ?? []).map { "\($0)" }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                for window in windows {
                    let line = WindowJSON(session: window.session, window: window.window, firstLine: table.line(ofRow: window.firstRow),
                                          rows: window.rowCount, label: window.label, probabilities: window.probabilities)
                    print(String(decoding: try encoder.encode(line), as: UTF8.self))
                }
                return
            }
            var output = TextTable(["session", "window", "line", "rows", "label", "probability"] + classes,
                                   alignments: [.left, .right, .right, .right, .left, .right] + classes.map { _ in .right })
            for window in windows {
                output.append([window.session, String(window.window), String(table.line(ofRow: window.firstRow)), String(window.rowCount), window.label,
                               String(format: "%.4f", window.probabilities[window.label] ?? 0)]
                              + classes.map { String(format: "%.4f", window.probabilities[$0] ?? 0) })
            }
            print(output.render())
        }
    }
}

/// The columns `train` and `evaluate` read.
struct RecordingColumns: ParsableArguments {
    @Option(help: "The label column.")
    var labelColumn: String

    @Option(help: "The session (recording) column.")
    var sessionColumn: String

    @Option(help: "A column to sort each session's samples by.")
    var timeColumn: String?
}

/// Iteration progress bar: the steps of each pass (samples counted as chunks × 20 windows × the
/// window, padding included), then the pass's loss and training accuracy.
private final class IterationProgress: @unchecked Sendable {
    let iterations: Int
    let samplesPerStep: Int
    let log: TrainingLog?
    private(set) var logError: Error?
    private var bar: ProgressBar?
    private var current = 0
    private var stepsDone = 0

    init(iterations: Int, samplesPerStep: Int, log: TrainingLog?) {
        self.iterations = iterations
        self.samplesPerStep = samplesPerStep
        self.log = log
    }

    var handle: @Sendable (MLActivityClassifier.Progress) -> Void {
        { [self] event in
            switch event {
            case .stepFinished(let iteration, let step, let of, let loss):
                if bar == nil { bar = ProgressBar(epochs: iterations, stepsPerEpoch: of) }
                if iteration != current {
                    current = iteration
                    bar?.startEpoch(iteration)
                }
                stepsDone = step
                bar?.update(step: step, samples: step * samplesPerStep, loss: loss)
            case .iterationFinished(let iteration):
                bar?.finishEpoch(loss: iteration.loss, accuracy: iteration.trainingAccuracy, samples: stepsDone * samplesPerStep)
                do {
                    try log?.append(epoch: iteration.iteration, loss: iteration.loss, accuracy: iteration.trainingAccuracy, seconds: iteration.seconds)
                } catch {
                    logError = error
                }
            }
        }
    }
}

/// `activity-classifier evaluate --json`.
private struct ActivityEvaluationJSON: Encodable {
    let perRow: EvaluationJSON
    let perWindow: EvaluationJSON
}

/// `activity-classifier predict --json`: one line per window.
private struct WindowJSON: Encodable {
    let session: String
    let window: Int
    let firstLine: Int
    let rows: Int
    let label: String
    let probabilities: [String: Double]
}

private func percent(_ value: Double) -> String { String(format: "%.2f%%", value * 100) }
