import Foundation

/// A model file or folder that could not be read or written.
///
/// The description is one line that names the file and what is wrong with it, ready to show a user.
public struct ModelFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What went wrong, in broad terms.
    public enum Kind: String, Equatable, Sendable {
        /// Nothing exists at the path.
        case notFound
        /// A folder that is not a compiled model in OpenCoreML's layout.
        case notAModel
        /// The file exists but could not be read (permissions, I/O).
        case unreadable
        /// The bytes are not well-formed protobuf (truncated, random bytes, wrong encoding).
        case corrupt
        /// Well-formed protobuf, but not a Core ML model.
        case notCoreML
        /// The model could not be written.
        case writeFailed
    }

    /// What went wrong, in broad terms.
    public var kind: Kind
    /// The file or folder concerned.
    public var path: String
    /// What is wrong, in words.
    public var reason: String

    /// An error about the file or folder at `path`.
    public init(_ kind: Kind, path: String, reason: String) {
        self.kind = kind
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
}

extension ModelFileError: LocatedError {
    public var location: String { path }
    public var message: String { reason }
}
