import ArgumentParser
import CoreMLSpec
import Foundation
import OpenCoreML
import OpenCreateML

/// `opencoreml demo`: the seeds' on-device training story end to end. Builds LeNet in Swift,
/// trains it with `MLUpdateTask` on digits the program draws itself (or on `--data`), evaluates it,
/// and writes the model before and after training.
struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Build the seeds' LeNet in Swift, train it on generated digits (or --data), evaluate it and save it.",
        discussion: "Needs no download: the digits are rendered by the program. With --data, a folder of MNIST-format IDX files is used instead."
    )

    @Option(help: "The folder to write the models and charts to.")
    var output = "opencoreml-demo"

    @Option(help: "A folder of MNIST-format IDX files (e.g. /usr/share/datasets/fashion-mnist) to train on instead of generated digits.")
    var data: String?

    @Option(help: "Epochs.")
    var epochs = 3

    @Option(help: "Training examples (generated, or the first N of --data).")
    var examples = 12_000

    @Option(name: .customLong("test-examples"), help: "Held-out examples to evaluate on.")
    var testExamples = 2_000

    @Option(name: .customLong("learning-rate"), help: "Adam's learning rate (the model's default is the seeds' 1e-4).")
    var learningRate = 1e-3

    @Flag(name: .customLong("model-only"), help: "Write the untrained LeNet.mlmodel (updatable) and stop, e.g. as the starting model of a federation.")
    var modelOnly = false

    @Option(name: .customLong("chart-format"), help: ArgumentHelp("The charts' format: svg, png or pdf (loss.svg and confusion.svg by default).", valueName: "svg|png|pdf"))
    var chartFormat = "svg"

    func validate() throws {
        guard epochs >= 1, examples >= 1, testExamples >= 1 else {
            throw ValidationError("--epochs, --examples and --test-examples must be at least 1")
        }
        guard ChartFormat(path: "chart." + chartFormat) != nil else {
            throw ValidationError("--chart-format \(chartFormat): give svg, png or pdf")
        }
    }

    func run() throws {
        let folder = URL(fileURLWithPath: output)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw CLIError.file(output, "could not create the folder")
        }
        // 1. Build the model in Swift and save it (as .mlmodel and as a compiled folder).
        let specification = LeNet.specification()
        let file = folder.appendingPathComponent("LeNet.mlmodel")
        do {
            try specification.validate()
            try specification.write(to: file)
            try CoreML_Specification_Model(contentsOf: file).write(to: folder.appendingPathComponent("LeNet.mlmodelc"))
        } catch {
            throw CLIError.wrap(error)
        }
        print(ModelReport(specification, path: file.path).renderText())
        print("")
        if modelOnly { return }

        // 2. Data: generated digits, or a real dataset.
        let (train, test) = try datasets()
        print("Training on \(grouped(train.count)) examples of \(train.name), evaluating on \(grouped(test.count)).")

        // 3. Train with MLUpdateTask, as an app would.
        let configuration = MLModelConfiguration()
        configuration.parameters = [.epochs: epochs, .learningRate: learningRate]
        let model: MLModel
        do {
            model = try MLModel(contentsOf: file, configuration: configuration)
        } catch {
            throw CLIError.wrap(error)
        }
        let result = try TrainingSession(model: model, examples: try CLIError.wrapping { try train.batchProvider(for: model) }).run()
        let trained = result.model
        print("")
        print(EpochTable.render(result.epochs))

        // 4. Evaluate, chart, save.
        let (before, after) = try CLIError.wrapping {
            (try MLClassifierMetrics(model: model, on: test), try MLClassifierMetrics(model: trained, on: test))
        }
        let trainedFile = folder.appendingPathComponent("LeNet-trained.mlmodel")
        try CLIError.wrapping { try trained.write(to: trainedFile) }
        let curve = folder.appendingPathComponent("loss." + chartFormat.lowercased()).path
        let matrix = folder.appendingPathComponent("confusion." + chartFormat.lowercased()).path
        try writeChart(to: curve) { LossCurveChart.make(result.epochs, metrics: $0) }
        try writeChart(to: matrix) { ConfusionMatrixChart.make(after, title: "LeNet on \(test.name)", text: $0) }
        print("")
        print(after.renderText())
        print("")
        print(String(format: "Test accuracy: %.2f%% before training, %.2f%% after.", before.accuracy * 100, after.accuracy * 100))
        print("Wrote \(file.path) (untrained), \(trainedFile.path) (trained),")
        print("      \(curve) and \(matrix).")
        print("Next: opencoreml evaluate \(trainedFile.path) --data DIR, or opencoreml train \(file.path) --data DIR --output OUT.mlmodel")
    }

    private func datasets() throws -> (train: LabeledDataset, test: LabeledDataset) {
        if let data {
            return try CLIError.wrapping {
                (try LabeledDataset(contentsOf: URL(fileURLWithPath: data), split: .train).prefix(examples),
                 try LabeledDataset(contentsOf: URL(fileURLWithPath: data), split: .test).prefix(testExamples))
            }
        }
        return (.generatedDigits(examples, seed: 1),
                .generatedDigits(testExamples, seed: 2, name: "generated digits (held out)"))
    }
}
