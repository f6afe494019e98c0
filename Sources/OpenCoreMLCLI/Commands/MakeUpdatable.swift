import ArgumentParser
import CoreMLSpec
import Foundation
import OpenCoreMLTools

/// `opencoreml make-updatable MODEL --layers a,b --loss cross-entropy|mse --optimizer sgd|adam --output OUT`.
struct MakeUpdatable: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "make-updatable",
        abstract: "Make a neural network trainable on device: updatable layers, loss, optimizer and epochs.",
        discussion: """
            The loss reads a classifier's probabilities, or the model output that comes from a softmax (cross-entropy) \
            or the first output (mse), unless --loss-input names a blob; its target is a new training input \
            (<input>_true, or a classifier's label). Allowed values written into the model: learning rate 0…1, \
            batch sizes 8…256 and the one given, epochs 1…1000. OUT is written atomically, only when the result is valid.
            """
    )

    @Argument(help: "The .mlmodel file or .mlmodelc folder to edit.")
    var model: String

    @Option(help: "Comma-separated names of the layers to train.")
    var layers: String

    @Option(help: "cross-entropy or mse.")
    var loss: String

    @Option(name: .customLong("loss-input"), help: "The blob the loss reads (default: see below).")
    var lossInput: String?

    @Option(help: "sgd or adam.")
    var optimizer: String

    @Option(name: .customLong("learning-rate"), help: "Default learning rate (default: 0.01 for SGD, 0.001 for Adam).")
    var learningRate: Double?

    @Option(name: .customLong("batch-size"), help: "Default mini-batch size (default: 32).")
    var batchSize: Int = 32

    @Option(help: "SGD momentum (default: 0).")
    var momentum: Double = 0

    @Option(help: "Default number of epochs (default: 10).")
    var epochs: Int = 10

    @Option(help: "Seed for shuffling the examples every epoch.")
    var seed: Int?

    @Flag(name: .customLong("no-shuffle"), help: "Do not shuffle the examples.")
    var noShuffle = false

    @Option(help: "Where to write the updatable model (.mlmodel or .mlmodelc).")
    var output: String

    func run() throws {
        try checkOutputs(output)
        guard let function = LossFunction(rawValue: loss) else {
            throw CLIError.model("--loss must be cross-entropy or mse, got '\(loss)'")
        }
        guard ["sgd", "adam"].contains(optimizer) else { throw CLIError.model("--optimizer must be sgd or adam, got '\(optimizer)'") }
        let rate = learningRate ?? (optimizer == "sgd" ? 0.01 : 0.001)
        guard rate > 0, rate <= 1 else { throw CLIError.model("--learning-rate must be in (0, 1], got \(rate)") }
        guard batchSize > 0 else { throw CLIError.model("--batch-size must be positive, got \(batchSize)") }
        guard epochs > 0 else { throw CLIError.model("--epochs must be positive, got \(epochs)") }
        guard momentum >= 0, momentum <= 1 else { throw CLIError.model("--momentum must be in [0, 1], got \(momentum)") }
        if let seed, seed < 0 { throw CLIError.model("--seed must not be negative, got \(seed)") }
        let names = ModelEditing.list(layers)
        guard !names.isEmpty else { throw CLIError.model("--layers names no layer") }
        guard output.hasSuffix(".mlmodel") || output.hasSuffix(".mlmodelc") else { throw CLIError.unsupportedExtension(path: output) }

        var spec = try ModelEditing.read(model)
        let batch = UInt(batchSize)
        let batches = Array(Set([8, 16, 32, 64, 128, 256, batch])).sorted()
        try ModelEditing.edit(model) {
            try spec.makeUpdatable(layers: names)
            try spec.setLoss(function, input: lossInput)
            if optimizer == "sgd" {
                try spec.setOptimizer(SGD(learningRateDefault: rate, miniBatchSizeDefault: batch, miniBatchSizeRange: batches, momentumDefault: momentum))
            } else {
                try spec.setOptimizer(Adam(learningRateDefault: rate, miniBatchSizeDefault: batch, miniBatchSizeRange: batches))
            }
            try spec.setEpochs(UInt(epochs))
            try spec.setShuffle(!noShuffle, seed: seed.map { UInt($0) })
        }
        try ModelEditing.write(spec, to: output)
        let lossLayer = spec.neuralNetworkSpecification!.updateParams.lossLayers[0]
        let lossRead = function == .crossEntropy ? lossLayer.categoricalCrossEntropyLossLayer.input : lossLayer.meanSquaredErrorLossLayer.input
        print("Wrote \(output): updatable layers \(names.joined(separator: ", ")); \(function.rawValue) loss on '\(lossRead)'; "
            + "\(optimizer == "sgd" ? "SGD" : "Adam") learning rate \(rate), batch \(batch), \(epochs) epochs; "
            + "training inputs \(spec.description_p.trainingInput.map(\.name).joined(separator: ", ")).")
    }
}
