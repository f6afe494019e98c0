import CoreMLSpec
import Foundation
import OpenCoreMLTools

// The OpenCoreMLCodeGen plugin's tool: `opencoreml-generate MODEL OUTPUT.swift CLASS`. A small
// executable (the schema and the generator only), so a build that uses the plugin does not first
// build the whole `opencoreml` command for the host. `opencoreml generate` does the same by hand.

let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    FileHandle.standardError.write(Data("usage: opencoreml-generate MODEL OUTPUT.swift CLASS\n".utf8))
    exit(2)
}
do {
    let model = try CoreML_Specification_Model(contentsOf: URL(fileURLWithPath: arguments[1]))
    try model.validate()
    let source = try ModelClassGenerator(model: model, className: arguments[3]).source()
    let output = URL(fileURLWithPath: arguments[2])
    if (try? String(contentsOf: output, encoding: .utf8)) != source {
        try FileManager.default.createDirectory(at: output.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(source.utf8).write(to: output, options: .atomic)
    }
} catch {
    FileHandle.standardError.write(Data("error: \(arguments[1]): \(error)\n".utf8))
    exit(1)
}
