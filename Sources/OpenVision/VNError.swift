import Foundation

/// The error domain of Vision's errors.
public let VNErrorDomain = "com.apple.Vision"

/// Vision's error codes, with Vision's raw values.
public enum VNErrorCode: Int, Sendable {
    /// An error from Create ML's image processing (Vision's code; not used here).
    case turiCoreErrorCode = -1
    /// No error.
    case OK = 0
    /// The request was cancelled.
    case requestCancelled = 1
    /// The image's format is not one that can be read (here: neither JPEG nor PNG).
    case invalidFormat = 2
    /// The operation failed, such as a Core ML prediction that threw.
    case operationFailed = 3
    /// A value lies outside its bounds, such as a region of interest outside the picture.
    case outOfBoundsError = 4
    /// An option of the request has a value it cannot take.
    case invalidOption = 5
    /// The image or model could not be read.
    case ioError = 6
    /// A required option is missing.
    case missingOption = 7
    /// The request is not implemented (a plain `VNRequest`).
    case notImplemented = 8
    /// An error inside the framework.
    case internalError = 9
    /// There was not enough memory.
    case outOfMemory = 10
    /// An error of no other kind.
    case unknownError = 11
    /// The operation is not supported.
    case invalidOperation = 12
    /// The image is invalid: corrupt or truncated data, or no pixels.
    case invalidImage = 13
    /// An argument is invalid.
    case invalidArgument = 14
    /// The Core ML model does not suit the request, such as a model without an image input.
    case invalidModel = 15
    /// The request revision is not supported.
    case unsupportedRevision = 16
    /// The data is not available.
    case dataUnavailable = 17
    /// A time stamp was not found.
    case timeStampNotFound = 18
    /// The request is not supported.
    case unsupportedRequest = 19
}

/// An error from a Vision request: a ``VNErrorCode`` in ``VNErrorDomain`` and one line saying what
/// went wrong.
///
/// Vision reports its errors as `NSError`s in `VNErrorDomain`; this type is how OpenVision makes
/// them, and `error as NSError` gives the same domain and code:
///
/// ```swift
/// let error = error as NSError
/// if error.domain == VNErrorDomain && error.code == VNErrorCode.invalidModel.rawValue { … }
/// ```
public struct VNError: Error, CustomNSError, LocalizedError, CustomStringConvertible, @unchecked Sendable {
    /// What kind of error this is.
    public var code: VNErrorCode
    /// One line naming what went wrong and where.
    public var message: String
    /// The error that caused this one, such as Core ML's error for a failed prediction.
    public var underlyingError: Error?

    /// An error with a code and a message.
    public init(_ code: VNErrorCode, _ message: String, underlyingError: Error? = nil) {
        self.code = code
        self.message = message
        self.underlyingError = underlyingError
    }

    /// ``VNErrorDomain``.
    public static var errorDomain: String { VNErrorDomain }
    /// The code's raw value.
    public var errorCode: Int { code.rawValue }
    /// The message, and the underlying error under `NSUnderlyingErrorKey`.
    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: message]
        if let underlyingError { info[NSUnderlyingErrorKey] = underlyingError }
        return info
    }
    /// The message.
    public var errorDescription: String? { message }
    /// The message.
    public var description: String { message }
}
