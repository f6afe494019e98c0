import CoreMLSpec
import Foundation
import OpenCoreML

/// Every error the command line reports, with its one-line message. Exit code 1.
enum CLIError: Error, CustomStringConvertible {
    case model(String)
    case unsupportedExtension(path: String)
    case roundTripMismatch(path: String)

    /// Wraps errors from the libraries so each prints as one line.
    static func wrap(_ error: Error) -> Error {
        switch error {
        case let error as CLIError: return error
        case let error as ModelFileError: return CLIError.model(error.description)
        case let error as ModelValidationError: return CLIError.model(error.description)
        case let error as MLModelError: return CLIError.model(error.message)
        default: return error
        }
    }

    var description: String {
        switch self {
        case .model(let message):
            return message
        case .unsupportedExtension(let path):
            return "\(path): the output must end in .mlmodel or .mlmodelc"
        case .roundTripMismatch(let path):
            return "\(path): the model read back differs from the model written"
        }
    }
}
