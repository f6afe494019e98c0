import Foundation
import _OpenCoreMLTestSupport

/// Runs the built `opencoreml` executable and captures what it prints.
struct CommandResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

enum CommandRunner {
    /// The `opencoreml` binary beside the test bundle in the build products folder.
    static let executable: URL = {
        let candidates = [Bundle.main.bundleURL, URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()]
        for folder in candidates {
            for base in [folder, folder.deletingLastPathComponent()] {
                let url = base.appendingPathComponent("opencoreml")
                if FileManager.default.isExecutableFile(atPath: url.path) { return url }
            }
        }
        fatalError("the opencoreml executable was not found beside the tests in \(candidates)")
    }()

    static func run(_ arguments: [String], in directory: URL? = nil) throws -> CommandResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CommandResult(
            status: process.terminationStatus,
            stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self))
    }
}
