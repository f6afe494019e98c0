import ArgumentParser
import Foundation
import OpenCoreML
import OpenCreateML

/// `opencoreml tabular train|evaluate`: Create ML's tabular trainers (boosted trees, random forests,
/// decision trees, linear and logistic regression, and the automatic choice among them) on CSV tables.
struct Tabular: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Train and evaluate boosted trees, random forests, decision trees, linear and logistic regression on CSV tables.",
        discussion: """
            DATA.csv has a header naming the columns. Columns holding only integers are Int, only numbers Double, \
            anything else String; empty fields are missing values. String feature columns are categorical (trees split \
            on one category against the rest, linear models one-hot encode them); missing numbers go their learned \
            way in trees and take the training mean in linear models.
            """,
        subcommands: [Train.self, Evaluate.self]
    )

    enum Algorithm: String, ExpressibleByArgument, CaseIterable {
        case boostedTree = "boosted-tree", randomForest = "random-forest", decisionTree = "decision-tree", linear, logistic, auto
    }

    enum Task: String, ExpressibleByArgument, CaseIterable {
        case classification, regression

        /// An Int target with at most this many distinct values is a classification target.
        static let classCountLimit = 20
    }

    struct Train: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Train a tabular classifier or regressor on a CSV file and write it as an .mlmodel.",
            discussion: """
                --task defaults to what the target holds: a String target, or an Int target with at most \
                \(Task.classCountLimit) distinct values, is classified; any other numeric target is regressed. \
                --algorithm linear implies regression and logistic classification. auto trains Create ML's \
                MLClassifier or MLRegressor, which try several algorithms and keep the best on validation data. \
                Options left out take Create ML's defaults; an option the algorithm does not use is an error. \
                The fit time printed at the end (and in --log) counts training only, not reading the CSV file. \
                OUT is written last, and only when training succeeded.
                """)

        @Argument(help: "The training table (CSV with a header).")
        var data: String

        @Option(help: "The column to predict.")
        var target: String

        @Option(help: "Comma-separated feature columns (default: every column but the target).")
        var features: String?

        @Option(help: "boosted-tree, random-forest, decision-tree, linear, logistic or auto.")
        var algorithm: Algorithm = .boostedTree

        @Option(help: "classification or regression (default: inferred from the target column, see below).")
        var task: Task?

        @Option(help: ArgumentHelp("auto (Create ML's rule: none under 50 rows, 10 % under 200, else 5 %), none, a fraction of the rows to hold out (0 < f < 1), or a CSV file with the same columns.",
                                   valueName: "auto|none|fraction|file.csv"))
        var validation = "auto"

        @OptionGroup var hyperparameters: TabularHyperparameters

        @Option(help: "Seeds the validation split and the trainer's sampling (default: Create ML's, 42; not with --algorithm auto).")
        var seed: Int?

        @Option(help: "Threads for training (default: all cores).")
        var threads: Int?

        @Option(name: .shortAndLong, help: "The .mlmodel to write.")
        var output: String

        @Option(help: ArgumentHelp("Also write one JSON line per iteration and a final summary line with the fit time.", valueName: "file.jsonl"))
        var log: String?

        @OptionGroup var metadata: TabularMetadataOptions

        func validate() throws {
            if let threads, threads < 1 { throw ValidationError("--threads must be at least 1, got \(threads)") }
            let algorithmName = algorithm.rawValue
            for option in hyperparameters.given where !option.algorithms.contains(algorithm) {
                throw ValidationError("\(option.flag) does not apply to --algorithm \(algorithmName)"
                                      + (algorithm == .auto ? " (auto uses each trainer's defaults)" : ""))
            }
            if algorithm == .auto && (validation != "auto" || seed != nil) {
                throw ValidationError("--validation and --seed do not apply to --algorithm auto: MLClassifier and MLRegressor set aside Create ML's automatic split (seed 42)")
            }
            if let task {
                if algorithm == .linear && task == .classification { throw ValidationError("--algorithm linear is a regressor; use logistic to classify") }
                if algorithm == .logistic && task == .regression { throw ValidationError("--algorithm logistic is a classifier; use linear to regress") }
            }
        }

        func run() throws {
            try checkOutputs(output, log)
            guard output.hasSuffix(".mlmodel") else { throw CLIError.unsupportedExtension(path: output) }
            if let threads { OpenCoreMLRuntime.threadCount = threads }

            let loadStart = monotonicSeconds()
            let training = try TabularTable.load(data)
            let featureColumns = try training.featureColumns(features, target: target)
            let validationData = try TabularValidation(validation, seed: seed ?? 42, columns: featureColumns + [target])
            let loadSeconds = monotonicSeconds() - loadStart
            let memoryAfterRead = (peak: OpenCoreMLRuntime.peakResidentBytes, resident: OpenCoreMLRuntime.currentResidentBytes)
            let task = try task ?? training.inferredTask(target: target, algorithm: algorithm)

            let log = try log.map { try TrainingLog(path: $0) }
            let progress = TabularProgress(iterations: hyperparameters.iterationCount(for: algorithm), rows: training.table.size.rows,
                                           task: task, algorithm: algorithm, log: log)
            let request = TabularTrainingRequest(table: training.table, target: target, features: featureColumns,
                                                 validation: validationData.setting, seed: seed, hyperparameters: hyperparameters)
            let fitStart = monotonicSeconds()
            let result: TabularResult
            do {
                result = try request.train(task: task, algorithm: algorithm, progress: progress)
            } catch {
                progress.abandon()
                throw training.locate(error, validation: validationData.file)
            }
            let fitSeconds = monotonicSeconds() - fitStart
            let peakAfterFit = OpenCoreMLRuntime.peakResidentBytes
            progress.finish()
            if let error = progress.logError { throw error }

            print(result.headline(task: task, features: featureColumns, target: target))
            print("\(grouped(result.training.exampleCount)) training rows, "
                  + (result.validation.map { "\(grouped($0.exampleCount)) validation rows" } ?? "no validation"))
            if !result.iterations.isEmpty { print(TabularProgress.table(result.iterations, task: task)) }
            print(result.metricsLine)
            print(String(format: "fit time %.3f s (reading the CSV files %.3f s, not counted)", fitSeconds, loadSeconds))
            let megabytes = { (bytes: Int) in Double(bytes) / 1_048_576 }
            print(String(format: "peak memory %.0f MB (%.0f MB by the end of reading the CSV files, %.0f MB resident after it)",
                         megabytes(peakAfterFit), megabytes(memoryAfterRead.peak), megabytes(memoryAfterRead.resident)))
            try log?.append(result.summaryFields(task: task, rows: training.table.size.rows, features: featureColumns.count,
                                                 loadSeconds: loadSeconds, fitSeconds: fitSeconds)
                            + [("peakMBAfterRead", .number(megabytes(memoryAfterRead.peak).rounded())),
                               ("residentMBAfterRead", .number(megabytes(memoryAfterRead.resident).rounded())),
                               ("peakMBAfterFit", .number(megabytes(peakAfterFit).rounded()))])
            try CLIError.wrapping { try result.write(URL(fileURLWithPath: output), metadata.metadata) }
            print("wrote \(output)")
        }
    }

    struct Evaluate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Evaluate a tabular .mlmodel on a labelled CSV table: accuracy, per-class precision/recall/F1 and the confusion matrix for a classifier; RMSE, maximum and mean absolute error for a regressor.",
            discussion: "The model's inputs are read from the columns of the same names; other columns are ignored.")

        @Argument(help: "The classifier or regressor (.mlmodel or .mlmodelc), as 'tabular train' or Create ML writes it.")
        var model: String

        @Argument(help: "The labelled table (CSV with a header).")
        var data: String

        @Option(help: "The column holding the true values.")
        var target: String

        @Flag(help: "Print one JSON object instead of tables.")
        var json = false

        func run() throws {
            let loaded = try loadModel(model)
            let table = try TabularTable.load(data, quiet: json)
            let rows = try table.modelRows(for: loaded, target: target)
            if rows.isClassifier {
                let metrics = try table.locatingRows { try MLClassifierMetrics(model: loaded, on: rows, labelFeature: rows.targetFeature) }
                if json { return try printJSON(EvaluationJSON(metrics)) }
                print(metrics.renderText())
            } else {
                let metrics = try table.locatingRows {
                    try MLRegressorMetrics(model: loaded, on: rows, targetFeature: rows.targetFeature, predictionFeature: rows.predictionFeature)
                }
                if json { return try printJSON(metrics) }
                print(metrics.renderText())
            }
        }
    }
}

/// The model metadata `tabular train` writes.
struct TabularMetadataOptions: ParsableArguments {
    @Option(name: .customLong("metadata-author"), help: "The model's author (default: the user's full name).")
    var author: String?

    @Option(name: .customLong("metadata-description"), help: "The model's short description.")
    var shortDescription: String?

    @Option(name: .customLong("metadata-license"), help: "The model's license.")
    var license: String?

    @Option(name: .customLong("metadata-version"), help: "The model's version.")
    var version: String?

    /// Create ML's defaults where an option is left out; nil when none is given.
    var metadata: MLModelMetadata? {
        guard author != nil || shortDescription != nil || license != nil || version != nil else { return nil }
        var metadata = MLModelMetadata()
        if let author { metadata.author = author }
        if let shortDescription { metadata.shortDescription = shortDescription }
        if let license { metadata.license = license }
        if let version { metadata.version = version }
        return metadata
    }
}
