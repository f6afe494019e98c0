import ArgumentParser
import CoreMLSpec
import Foundation

/// `opencoreml convert IN OUT`: between `.mlmodel` files and OpenCoreML `.mlmodelc` folders, both ways.
struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compile an .mlmodel into an .mlmodelc folder, or turn an .mlmodelc back into an .mlmodel.",
        discussion: "The model is validated first. OUT is written atomically: it appears only once complete. An .mlpackage (ML Program) becomes one self-contained .mlmodel or .mlmodelc: its weights are copied into the program."
    )

    @Argument(help: "The .mlmodel file, .mlpackage or .mlmodelc folder to read.")
    var input: String

    @Argument(help: "Where to write: a path ending in .mlmodel or .mlmodelc.")
    var output: String

    func validate() throws {
        let ext = URL(fileURLWithPath: output).pathExtension.lowercased()
        guard ext == "mlmodel" || ext == "mlmodelc" else {
            throw ValidationError("the output must end in .mlmodel or .mlmodelc, got '\(output)'")
        }
    }

    func run() throws {
        try checkOutputs(output)
        do {
            let model = try CoreML_Specification_Model(selfContainedContentsOf: URL(fileURLWithPath: input))
            try model.validate()
            try model.write(to: URL(fileURLWithPath: output))
            print("Wrote \(output) (\(ModelReport.kindNames[model.modelTypeName] ?? model.modelTypeName), specification version \(model.specificationVersion)).")
        } catch {
            throw CLIError.wrap(error)
        }
    }
}
