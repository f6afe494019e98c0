import ArgumentParser
import Foundation
import OpenCoreML
import OpenCreateML

/// `opencoreml evaluate MODEL --data DATASET`: accuracy, loss, per-class metrics, confusion matrix.
struct Evaluate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Evaluate a classifier on a dataset: accuracy, mean loss, per-class precision/recall and the confusion matrix.",
        discussion: "IDX folders default to the test split."
    )

    @Argument(help: "The .mlmodel file or .mlmodelc folder.")
    var model: String

    @OptionGroup var dataset: DatasetOptions

    @OptionGroup var memory: MemoryLimitOption

    @Flag(help: "Print one JSON object instead of tables.")
    var json = false

    @Option(name: .customLong("confusion-matrix"), help: ArgumentHelp("Also write the confusion matrix as an SVG or PNG heat map (by the extension).", valueName: "file"),
            transform: ChartFormat.checkedPath)
    var confusionMatrix: String?

    func run() throws {
        try checkOutputs(confusionMatrix)
        memory.apply()
        let loaded = try loadModel(model)
        let examples = try dataset.load(defaultSplit: .test)
        let metrics = try CLIError.wrapping { try MLClassifierMetrics(model: loaded, on: examples, classNames: dataset.classNameList) }
        if let confusionMatrix { try writeChart(to: confusionMatrix) { ConfusionMatrixChart.make(metrics, text: $0) } }
        if json {
            try printJSON(EvaluationJSON(metrics))
            return
        }
        print("\(examples.name): \(grouped(metrics.exampleCount)) examples")
        print(String(format: "accuracy %.2f%%", metrics.accuracy * 100) + (metrics.meanCrossEntropy.map { String(format: "   mean loss %.4f", $0) } ?? ""))
        print("")
        print(metrics.renderText())
    }
}

/// `evaluate --json`: the headline numbers and the whole report.
struct EvaluationJSON: Encodable {
    let examples: Int
    let accuracy: Double
    /// The mean of −log p(true class), when the model outputs probabilities.
    let meanLoss: Double?
    let report: MLClassifierMetrics

    init(_ metrics: MLClassifierMetrics) {
        examples = metrics.exampleCount
        accuracy = metrics.accuracy
        meanLoss = metrics.meanCrossEntropy
        report = metrics
    }
}
