import Foundation
import OpenCoreML

/// Loads the model file or folder a command was given; a failure becomes one CLI error that
/// names the path.
func loadModel(_ path: String, configuration: MLModelConfiguration = MLModelConfiguration()) throws -> MLModel {
    do {
        return try MLModel(contentsOf: URL(fileURLWithPath: path), configuration: configuration)
    } catch {
        // Errors about the file name it themselves (as an absolute path); others get the path given.
        let message = "\(CLIError.wrap(error))"
        let named = message.hasPrefix(path + ":") || message.hasPrefix(URL(fileURLWithPath: path).path + ":")
        throw CLIError.model(named ? message : "\(path): \(message)")
    }
}
