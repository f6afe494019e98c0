import CoreMLSpec
import Foundation

/// Checks every output path a command was given before it starts working, so that a bad path fails
/// at once and no output is replaced when another one cannot be written.
func checkOutputs(_ paths: String?...) throws {
    for path in paths.compactMap({ $0 }) {
        try CLIError.wrapping { try OutputLocation.check(URL(fileURLWithPath: path)) }
    }
}
