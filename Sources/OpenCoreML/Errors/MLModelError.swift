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
        /// An error without a more specific code, such as a model that breaks one of Core ML's rules.
        case generic = 0
        /// A feature value of the wrong type or shape, a missing input, or a value that cannot be a feature.
        case featureType = 1
        /// A file or folder that is missing, unreadable, truncated or not a model.
        case io = 3
        /// A custom layer without an implementation (``MLCustomLayerRegistry``), or one whose implementation failed.
        case customLayer = 4
        /// An error in a custom model (Core ML's code; OpenCoreML runs no custom models).
        case customModel = 5
        /// An error while training a model, such as training data that does not fit it.
        case update = 6
        /// A parameter the model does not have, or a value outside the ones it allows.
        case parameters = 7
        /// Fetching an encrypted model's key failed (Core ML's code; OpenCoreML reads no encrypted models).
        case modelDecryptionKeyFetch = 8
        /// Decrypting an encrypted model failed (Core ML's code; OpenCoreML reads no encrypted models).
        case modelDecryption = 9
        /// An error with a deployed model collection (Core ML's code; not used by OpenCoreML).
        case modelCollection = 10
        /// A prediction was cancelled (Core ML's code; not used by OpenCoreML).
        case predictionCancelled = 11
    }

    /// What kind of error this is.
    public var code: Code
    /// One line saying what went wrong and where: the file, feature, layer or parameter concerned.
    public var message: String

    /// Creates an error with a code and a message.
    ///
    /// - Parameters:
    ///   - code: The kind of error.
    ///   - message: One line naming what went wrong and where.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
    /// The message, for `LocalizedError`.
    public var errorDescription: String? { message }
    /// The message.
    public var localizedDescription: String { message }
    /// Core ML's error domain, ``MLModelErrorDomain``.
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
