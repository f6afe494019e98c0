import ArgumentParser
import Foundation
import OpenCoreML

/// `opencoreml evaluate MODEL --data DATASET`: accuracy, loss, per-class metrics, confusion matrix.
struct Evaluate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Evaluate a classifier on a dataset: accuracy, mean loss, per-class precision/recall and the confusion matrix.",
        discussion: "IDX folders default to the test split."
    )

    @Argument(help: "The .mlmodel file or .mlmodelc folder.")
    var model: String

    @OptionGroup var dataset: DatasetOptions

    @Flag(help: "Print one JSON object instead of tables.")
    var json = false

    @Option(name: .customLong("confusion-matrix"), help: "Also write the confusion matrix as an SVG heat map.")
    var confusionMatrix: String?

    func run() throws {
        let loaded = try loadModel(model)
        let examples = try dataset.load(defaultSplit: .test)
        let binding = try DatasetBinding(model: loaded, dataset: examples, classNames: dataset.classNameList)
        let evaluation = try Evaluation(model: loaded, dataset: examples, binding: binding)
        if let confusionMatrix { try writeText(ConfusionMatrixSVG.render(evaluation.report), to: confusionMatrix) }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(evaluation), as: UTF8.self))
            return
        }
        print("\(examples.name): \(grouped(evaluation.examples)) examples")
        print(String(format: "accuracy %.2f%%", evaluation.accuracy * 100) + (evaluation.meanLoss.map { String(format: "   mean loss %.4f", $0) } ?? ""))
        print("")
        print(evaluation.report.renderText())
    }
}
