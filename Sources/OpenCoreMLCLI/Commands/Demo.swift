import ArgumentParser
import CoreMLSpec
import Foundation

/// `opencoreml demo`: builds the seeds' LeNet in Swift, validates it, saves it as `.mlmodel` and as a
/// `.mlmodelc` folder, reads both back and shows what `inspect` shows. Needs no data or downloads.
struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Build the seeds' LeNet in Swift, save it as .mlmodel and .mlmodelc, read it back and inspect it."
    )

    @Option(help: "The folder to write the models to.")
    var output = "opencoreml-demo"

    func run() throws {
        let folder = URL(fileURLWithPath: output)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let model = LeNet.specification()
            try model.validate()
            let file = folder.appendingPathComponent("LeNet.mlmodel")
            let compiled = folder.appendingPathComponent("LeNet.mlmodelc")
            let back = folder.appendingPathComponent("LeNet-from-compiled.mlmodel")
            try model.write(to: file)
            try CoreML_Specification_Model(contentsOf: file).write(to: compiled)
            try CoreML_Specification_Model(contentsOf: compiled).write(to: back)
            guard try Data(contentsOf: back) == Data(contentsOf: file) else {
                throw CLIError.roundTripMismatch(path: back.path)
            }
            print(ModelReport(try CoreML_Specification_Model(contentsOf: file), path: file.path).renderText())
            print("")
            print("Wrote \(file.path) (\(grouped(try Data(contentsOf: file).count)) bytes),")
            print("compiled it to \(compiled.path) and turned that back into \(back.lastPathComponent): identical bytes.")
            print("Next: opencoreml inspect \(file.path) --json")
        } catch {
            throw CLIError.wrap(error)
        }
    }
}
