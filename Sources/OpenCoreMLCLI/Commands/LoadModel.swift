import Foundation
import OpenCoreML

/// Loads the model file or folder a command was given; a failure becomes one CLI error that
/// names the path.
func loadModel(_ path: String, configuration: MLModelConfiguration = MLModelConfiguration()) throws -> MLModel {
    do {
        return try MLModel(contentsOf: URL(fileURLWithPath: path), configuration: configuration)
    } catch {
        throw CLIError.model("\(path): \(CLIError.wrap(error))")
    }
}
