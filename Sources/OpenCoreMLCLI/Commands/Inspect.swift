import ArgumentParser
import CoreMLSpec
import Foundation

/// `opencoreml inspect MODEL [--json]`: what Xcode's model page shows, in a terminal or as JSON.
struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a model's type, metadata, features, layers, parameters and update settings.",
        discussion: "MODEL is an .mlmodel file, an .mlpackage folder or an OpenCoreML .mlmodelc folder. An invalid model (for an ML Program, also a weight file that does not hold what the program declares) is reported as an error (exit code 1)."
    )

    @Argument(help: "The .mlmodel file, .mlpackage or .mlmodelc folder to inspect.")
    var model: String

    @Flag(help: "Print one JSON object with stable keys instead of text.")
    var json = false

    func run() throws {
        let url = URL(fileURLWithPath: model)
        let specification: CoreML_Specification_Model
        do {
            specification = try CoreML_Specification_Model(contentsOf: url)
        } catch {
            throw CLIError.wrap(error)
        }
        var report = ModelReport(specification, path: model)
        if case .mlProgram(let program)? = specification.type, ModelPackage.isPackage(url) {
            do {
                report.mlProgram?.addWeights(try MLProgramWeights(program: program, package: ModelPackage(contentsOf: url)))
            } catch {
                throw CLIError.wrap(error)
            }
        }
        if let first = report.issues.first {
            let more = report.issues.count - 1
            throw CLIError.model("\(model): \(first)" + (more > 0 ? " (and \(more) more problem\(more == 1 ? "" : "s"))" : ""))
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(report.renderText())
        }
    }
}
