import ArgumentParser
import Foundation
import OpenCoreML

/// The `opencoreml` command: Core ML models on every platform Swift runs on.
public struct OpenCoreMLCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "opencoreml",
        abstract: "Inspect, run, train, evaluate, convert and edit Core ML models on any platform Swift runs on.",
        version: OpenCoreMLRuntime.version,
        subcommands: [Demo.self, Inspect.self, Predict.self, Train.self, Evaluate.self, Convert.self, MakeUpdatable.self, StripClassifier.self,
                      MakePipeline.self, KNN.self, ImageClassifier.self, ActivityClassifier.self, Tabular.self, Federated.self, Generate.self, Bench.self]
    )

    public init() {}

    /// Runs the command line and returns the process exit code: 0 on success, 1 for a failure
    /// (bad model, missing file), 2 for a usage error. Errors print one line on standard error.
    public static func main(arguments: [String]) async -> Int32 {
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            return 0
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                return 0
            }
            if error is CLIError || code == .failure && !(error is ExitCode) {
                printError("error: \(CLIError.wrap(error))")
                return 1
            }
            if let exit = error as? ExitCode { return exit.rawValue }
            printError(fullMessage(for: error))
            return 2
        }
    }
}

/// Writes one error line to standard error, escaped for the terminal (errors quote a model's names).
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message.terminalEscaped(keepingNewlines: true) + "\n").utf8))
}
