import ArgumentParser
import Foundation
import OpenCoreML
import OpenCreateML

/// `opencoreml train MODEL --data DATASET --output OUT`: on-device training, from the command line.
struct Train: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Train an updatable model on a dataset and write the trained model.",
        discussion: """
            Values map onto the model's single input (reshaped to its shape), labels onto its loss target \
            (a class index) or, for classifiers, its label input. Hyperparameters default to the model's and \
            must be values the model allows. OUT is written only at the end, atomically.
            """
    )

    @Argument(help: "The updatable .mlmodel file or .mlmodelc folder.")
    var model: String

    @OptionGroup var dataset: DatasetOptions

    @Option(help: "Where to write the trained model (.mlmodel or .mlmodelc).")
    var output: String

    @Option(help: "Epochs (default: the model's).")
    var epochs: Int?

    @Option(name: .customLong("learning-rate"), help: "Learning rate (default: the model's).")
    var learningRate: Double?

    @Option(name: .customLong("batch-size"), help: "Mini-batch size (default: the model's).")
    var batchSize: Int?

    @Option(help: "Seed for shuffling (default: the model's).")
    var seed: Int?

    @Option(help: "Append one JSON line per epoch to this file.")
    var log: String?

    @OptionGroup var memory: MemoryLimitOption

    @Option(name: .customLong("loss-curve"), help: ArgumentHelp("Write the loss (and accuracy) per epoch as a chart: FILE.svg, FILE.png or FILE.pdf (by the extension).", valueName: "file"),
            transform: ChartFormat.checkedPath)
    var lossCurve: String?

    func validate() throws {
        guard output.hasSuffix(".mlmodel") || output.hasSuffix(".mlmodelc") else {
            throw CLIError.unsupportedExtension(path: output)
        }
    }

    func run() throws {
        try checkOutputs(output, log, lossCurve)
        memory.apply()
        let configuration = MLModelConfiguration()
        var parameters: [MLParameterKey: Any] = [:]
        if let epochs { parameters[.epochs] = epochs }
        if let learningRate { parameters[.learningRate] = learningRate }
        if let batchSize { parameters[.miniBatchSize] = batchSize }
        if let seed { parameters[.seed] = seed }
        configuration.parameters = parameters.isEmpty ? nil : parameters
        let loaded = try loadModel(model, configuration: configuration)
        guard loaded.modelDescription.isUpdatable else { throw CLIError.model("\(model): the model is not updatable") }
        let examples = try dataset.load(defaultSplit: .train)
        let bound = try CLIError.wrapping { try examples.batchProvider(for: loaded, classNames: dataset.classNameList) }
        if loaded.sampleCount != nil {
            try appendSamples(to: loaded, examples: examples, bound: bound)
            return
        }
        guard bound.labelName != nil else {
            throw CLIError.model("\(model): the model has no training input for the labels")
        }
        FileHandle.standardError.write(Data("Training on \(grouped(examples.count)) examples of \(examples.name)\n".utf8))
        let result = try TrainingSession(model: loaded, examples: bound, logPath: log).run()
        // The chart first: the model, written last, replaces OUT only when everything else worked.
        if let lossCurve {
            try writeChart(to: lossCurve) { LossCurveChart.make(result.epochs, metrics: $0) }
        }
        try CLIError.wrapping { try result.model.write(to: URL(fileURLWithPath: output)) }
        print(EpochTable.render(result.epochs))
        print("Wrote \(output)")
    }

    /// k-NN "training": every example becomes a sample; prints the samples per label.
    private func appendSamples(to loaded: MLModel, examples: LabeledDataset, bound: LabeledBatchProvider) throws {
        let before = loaded.sampleCount ?? 0
        FileHandle.standardError.write(Data("Adding \(grouped(examples.count)) examples of \(examples.name) to \(grouped(before)) samples\n".utf8))
        let trained = try TrainingSession(model: loaded, examples: bound, quiet: true).run().model
        try CLIError.wrapping { try trained.write(to: URL(fileURLWithPath: output)) }
        var counts: [String: Int] = [:]
        var order: [String] = []
        for label in trained.sampleLabels ?? [] {
            let name = label.type == .string ? label.stringValue : String(label.int64Value)
            if counts[name] == nil { order.append(name) }
            counts[name, default: 0] += 1
        }
        var table = TextTable(["label", "samples"], alignments: [.left, .right])
        for name in order { table.append([name, grouped(counts[name]!)]) }
        print(table.render())
        print("\(grouped(trained.sampleCount ?? 0)) samples (\(grouped(before)) before). Wrote \(output)")
    }
}
