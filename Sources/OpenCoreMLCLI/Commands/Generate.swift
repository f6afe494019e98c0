import ArgumentParser
import CoreMLSpec
import Foundation
import OpenCoreMLTools

/// `opencoreml generate MODEL [--output DIR] [--class-name NAME]`: the typed Swift classes Xcode
/// generates for a model (`<Name>`, `<Name>Input`, `<Name>Output`, `<Name>TrainingInput`).
struct Generate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write the typed Swift classes Xcode generates for a model (NAME, NAMEInput, NAMEOutput, NAMETrainingInput).",
        discussion: """
            The file is DIR/NAME.swift; NAME defaults to the model file's name. The OpenCoreMLCodeGen build-tool \
            plugin runs this for every .mlmodel in a target (the model must also be a resource of the target).
            """
    )

    @Argument(help: "The .mlmodel file or .mlmodelc folder.")
    var model: String

    @Option(help: "The folder to write NAME.swift to.")
    var output = "."

    @Option(name: .customLong("class-name"), help: "The class name (default: the model file's name).")
    var className: String?

    func run() throws {
        let url = URL(fileURLWithPath: model)
        let name = className ?? ModelClassGenerator.className(forModelAt: url)
        let destination = URL(fileURLWithPath: output).appendingPathComponent("\(name).swift")
        try checkOutputs(destination.path)
        let specification = try CLIError.wrapping { () throws -> CoreML_Specification_Model in
            let specification = try CoreML_Specification_Model(contentsOf: url)
            try specification.validate()
            return specification
        }
        let source = try CLIError.wrapping { try ModelClassGenerator(model: specification, className: name).source() }
        // Unchanged text is not rewritten, so builds that watch the file stay incremental.
        if (try? String(contentsOf: destination, encoding: .utf8)) == source {
            print("\(destination.path) is up to date")
            return
        }
        try writeFile(Data(source.utf8), to: destination.path)
        print("Wrote \(destination.path) (\(name), \(name)Input, \(name)Output\(source.contains("class \(name)TrainingInput") ? ", \(name)TrainingInput" : ""))")
    }
}
