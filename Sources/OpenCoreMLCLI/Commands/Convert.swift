import ArgumentParser
import CoreMLSpec
import Foundation

/// `opencoreml convert IN OUT`: between `.mlmodel` files, OpenCoreML `.mlmodelc` folders and
/// `.mlpackage` folders.
struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compile an .mlmodel into an .mlmodelc folder, turn an .mlmodelc back into an .mlmodel, or write an .mlpackage.",
        discussion: "The model is validated first. OUT is written atomically: it appears only once complete. An .mlpackage (ML Program) becomes one self-contained .mlmodel or .mlmodelc: its weights are copied into the program. Written as an .mlpackage, an ML Program keeps its weights in the package's weight file: a package's as they were, and from an .mlmodel or .mlmodelc every tensor of 10 values or more, as coremltools stores them."
    )

    @Argument(help: "The .mlmodel file, .mlpackage or .mlmodelc folder to read.")
    var input: String

    @Argument(help: "Where to write: a path ending in .mlmodel, .mlmodelc or .mlpackage.")
    var output: String

    func validate() throws {
        let ext = URL(fileURLWithPath: output).pathExtension.lowercased()
        guard ext == "mlmodel" || ext == "mlmodelc" || ext == "mlpackage" else {
            throw ValidationError("the output must end in .mlmodel, .mlmodelc or .mlpackage, got '\(output)'")
        }
    }

    func run() throws {
        try checkOutputs(output)
        do {
            let inputURL = URL(fileURLWithPath: input), outputURL = URL(fileURLWithPath: output)
            let model: CoreML_Specification_Model
            if ModelPackage.isPackageURL(outputURL) && ModelPackage.isPackage(inputURL) {
                // Package to package: the weights stay in a weight file, read from the input's.
                model = try CoreML_Specification_Model(contentsOf: inputURL)
                try model.validate()
                try ModelPackage.write(model, weightsFrom: ModelPackage(contentsOf: inputURL), to: outputURL)
            } else {
                model = try CoreML_Specification_Model(selfContainedContentsOf: inputURL)
                try model.validate()
                try model.write(to: outputURL)
            }
            print("Wrote \(output) (\(ModelReport.kindNames[model.modelTypeName] ?? model.modelTypeName), specification version \(model.specificationVersion)).")
        } catch {
            throw CLIError.wrap(error)
        }
    }
}
