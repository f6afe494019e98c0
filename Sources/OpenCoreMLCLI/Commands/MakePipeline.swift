import ArgumentParser
import CoreMLSpec
import Foundation
import OpenCoreMLTools

/// `opencoreml pipeline A B … --output OUT`: models run one after another.
struct MakePipeline: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pipeline",
        abstract: "Combine models into a pipeline, checking that their features connect.",
        discussion: """
            Each model's inputs must be pipeline inputs or earlier models' outputs of the same type. The pipeline \
            is a classifier when the last model is one (a regressor when it is one); only the last model may be \
            updatable, and then the pipeline is too. OUT is written atomically, only when the result is valid.
            """
    )

    @Argument(help: "The models, in the order they run (.mlmodel files or .mlmodelc folders).")
    var models: [String]

    @Option(help: "Comma-separated names for the models.")
    var names: String?

    @Option(help: "Comma-separated pipeline inputs (default: the models' inputs no earlier model produces).")
    var inputs: String?

    @Option(help: "Comma-separated pipeline outputs (default: the last model's outputs).")
    var outputs: String?

    @Option(help: "automatic, pipeline, classifier or regressor.")
    var kind: String = "automatic"

    @Option(help: "Where to write the pipeline (.mlmodel or .mlmodelc).")
    var output: String

    func run() throws {
        try checkOutputs(output)
        guard models.count >= 2 else { throw CLIError.model("a pipeline needs at least two models, got \(models.count)") }
        guard let pipelineKind = PipelineKind(rawValue: kind) else {
            throw CLIError.model("--kind must be one of \(PipelineKind.allCases.map(\.rawValue).joined(separator: ", ")), got '\(kind)'")
        }
        guard output.hasSuffix(".mlmodel") || output.hasSuffix(".mlmodelc") else { throw CLIError.unsupportedExtension(path: output) }
        let specs = try models.map(ModelEditing.read)
        let pipeline = try ModelEditing.edit(nil) {
            try CoreML_Specification_Model.pipeline(specs, names: names.map(ModelEditing.list) ?? [], kind: pipelineKind,
                                                    inputs: inputs.map(ModelEditing.list), outputs: outputs.map(ModelEditing.list))
        }
        try ModelEditing.write(pipeline, to: output)
        let description = pipeline.description_p
        print("Wrote \(output): \(pipeline.modelTypeName) of \(specs.map(\.modelTypeName).joined(separator: " → ")); "
            + "inputs \(description.input.map(\.name).joined(separator: ", ")); outputs \(description.output.map(\.name).joined(separator: ", "))"
            + (pipeline.isUpdatable ? "; updatable (training inputs \(description.trainingInput.map(\.name).joined(separator: ", ")))." : "."))
    }
}
