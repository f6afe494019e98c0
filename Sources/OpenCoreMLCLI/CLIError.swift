import CoreMLSpec
import Foundation

/// Every error the command line reports, with its one-line message. Exit code 1.
///
/// The libraries' errors all conform to `LocatedError` (what went wrong, and where); `wrap` is the
/// one place that turns them into the command line's message.
enum CLIError: Error, CustomStringConvertible {
    case model(String)
    case unsupportedExtension(path: String)
    case roundTripMismatch(path: String)

    /// A problem with a data or output file, printed as `path: problem`.
    static func file(_ path: String, _ problem: String) -> CLIError {
        .model("\(path): \(problem)")
    }

    /// Wraps errors from the libraries so each prints as one line.
    static func wrap(_ error: Error) -> Error {
        switch error {
        case let error as CLIError: return error
        case let error as LocatedError: return CLIError.model(error.description)
        default: return error
        }
    }

    /// `body`'s result; its error, if any, wrapped.
    static func wrapping<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw wrap(error) }
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
