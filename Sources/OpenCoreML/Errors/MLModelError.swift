import CoreMLSpec
import Foundation

/// The error domain of Core ML's errors.
public let MLModelErrorDomain = "com.apple.CoreML"

/// An error from loading, predicting with or updating a model, with Core ML's codes.
///
/// `localizedDescription` (and `description`) is one line naming what went wrong and where.
public struct MLModelError: Error, CustomStringConvertible, LocalizedError, Sendable {
    /// Core ML's error codes.
    public enum Code: Int, Sendable {
        case generic = 0
        case featureType = 1
        case io = 3
        case customLayer = 4
        case customModel = 5
        case update = 6
        case parameters = 7
        case modelDecryptionKeyFetch = 8
        case modelDecryption = 9
        case modelCollection = 10
        case predictionCancelled = 11
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
    public var errorDescription: String? { message }
    public var localizedDescription: String { message }
    public static var errorDomain: String { MLModelErrorDomain }

    /// Wraps the specification layer's errors with Core ML's codes.
    init(wrapping error: Error) {
        switch error {
        case let error as MLModelError: self = error
        case let error as ModelFileError: self.init(.io, error.description)
        case let error as ModelValidationError: self.init(.generic, error.description)
        default: self.init(.generic, String(describing: error))
        }
    }
}

extension MLModelError: LocatedError {
    /// Empty: Core ML's errors carry the place in their message.
    public var location: String { "" }
}
