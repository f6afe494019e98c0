import ArgumentParser
import CoreMLSpec
import Foundation
import OpenCoreMLTools

/// `opencoreml strip-classifier MODEL --output-blob NAME --output OUT`: a feature extractor.
struct StripClassifier: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strip-classifier",
        abstract: "Cut a neural network after an inner blob and make that blob its output (a feature extractor).",
        discussion: """
            Layers after the blob, and those it does not depend on, are dropped; a classifier becomes a plain \
            neural network whose output is a float32 multi-array of the blob's shape. Updatable marks and update \
            parameters are removed. OUT is written atomically, only when the result is valid.
            """
    )

    @Argument(help: "The .mlmodel file or .mlmodelc folder.")
    var model: String

    @Option(name: .customLong("output-blob"), help: "The blob to expose, e.g. the input of the last dense layer.")
    var outputBlob: String

    @Option(name: .customLong("output-name"), help: "The output feature's name (default: the blob's).")
    var outputName: String?

    @Option(help: "Where to write the feature extractor (.mlmodel or .mlmodelc).")
    var output: String

    func run() throws {
        try checkOutputs(output)
        guard output.hasSuffix(".mlmodel") || output.hasSuffix(".mlmodelc") else { throw CLIError.unsupportedExtension(path: output) }
        let spec = try ModelEditing.read(model)
        let extractor = try ModelEditing.edit(model) { try spec.featureExtractor(outputBlob: outputBlob, outputName: outputName) }
        try ModelEditing.write(extractor, to: output)
        let feature = extractor.description_p.output[0]
        print("Wrote \(output): a neural network of \(extractor.neuralNetwork.layers.count) layers (of \(spec.neuralNetworkSpecification!.layers.count)) "
            + "from \(extractor.description_p.input.map(\.name).joined(separator: ", ")) to '\(feature.name)' "
            + "(float32 \(feature.type.multiArrayType.shape.map(String.init).joined(separator: "×"))).")
    }
}
