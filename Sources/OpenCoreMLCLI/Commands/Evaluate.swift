import ArgumentParser
import Foundation
import OpenCoreML
import OpenCreateML

/// `opencoreml evaluate MODEL --data DATASET`: accuracy, loss, per-class metrics, confusion matrix.
struct Evaluate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Evaluate a classifier on a dataset: accuracy, mean loss, per-class precision/recall and the confusion matrix.",
        discussion: """
            IDX folders default to the test split. For a model with one image input, --data may also be a folder \
            with one sub-folder of JPEG/PNG pictures per class (named by its label).
            """
    )

    @Argument(help: "The .mlmodel file or .mlmodelc folder.")
    var model: String

    @OptionGroup var dataset: DatasetOptions

    @OptionGroup var memory: MemoryLimitOption

    @Flag(help: "Print one JSON object instead of tables.")
    var json = false

    @Option(name: .customLong("confusion-matrix"), help: ArgumentHelp("Also write the confusion matrix as a heat map: FILE.svg, FILE.png or FILE.pdf (by the extension).", valueName: "file"),
            transform: ChartFormat.checkedPath)
    var confusionMatrix: String?

    func run() throws {
        try checkOutputs(confusionMatrix)
        memory.apply()
        let loaded = try loadModel(model)
        let (metrics, name) = try evaluate(loaded)
        if let confusionMatrix {
            try writeChart(to: confusionMatrix) { ConfusionMatrixChart.make(metrics, title: "\(URL(fileURLWithPath: model).lastPathComponent) on \(name)", text: $0) }
        }
        if json {
            try printJSON(EvaluationJSON(metrics))
            return
        }
        print("\(name): \(grouped(metrics.exampleCount)) examples")
        print(String(format: "accuracy %.2f%%", metrics.accuracy * 100) + (metrics.meanCrossEntropy.map { String(format: "   mean loss %.4f", $0) } ?? ""))
        print("")
        print(metrics.renderText())
        if metrics.misclassifiedExamples.contains(where: { $0.file != nil }) {
            print("\nmisclassified")
            var table = TextTable(["file", "true", "predicted"])
            for wrong in metrics.misclassifiedExamples {
                table.append([wrong.file?.lastPathComponent ?? "#\(wrong.index)", wrong.trueLabel, wrong.predictedLabel])
            }
            print(table.render())
        }
    }

    /// The metrics and a name for the data: a folder of labelled pictures for an image model whose
    /// --data holds no IDX files, else the data set.
    private func evaluate(_ loaded: MLModel) throws -> (MLClassifierMetrics, String) {
        if let data = dataset.data, isPictureFolder(data, for: loaded) {
            let bar = ExtractionProgress(verb: "predicting")
            defer { bar.finish() }
            let metrics = try CLIError.wrapping {
                try MLClassifierMetrics(model: loaded, on: .labeledDirectories(at: URL(fileURLWithPath: data, isDirectory: true))) { done, total in
                    bar.handle(.featuresExtracted(file: URL(fileURLWithPath: data), completed: done, total: total, fromCache: false))
                }
            }
            return (metrics, data)
        }
        let examples = try dataset.load(defaultSplit: .test)
        return (try CLIError.wrapping { try MLClassifierMetrics(model: loaded, on: examples, classNames: dataset.classNameList) }, examples.name)
    }

    /// Whether `path` is a folder without IDX files and the model takes one image.
    private func isPictureFolder(_ path: String, for model: MLModel) -> Bool {
        let inputs = model.modelDescription.inputDescriptionsByName.values
        guard inputs.count == 1, inputs.first?.imageConstraint != nil else { return false }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue,
              let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return false }
        return !names.contains { $0.hasPrefix("train-") || $0.hasPrefix("t10k-") }
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
