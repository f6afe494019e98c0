import CoreMLSpec

/// An error from a Create ML trainer: what went wrong and where (a folder, a file, a parameter).
public struct CreateMLError: LocatedError, Sendable {
    /// The folder, file (with line and column) or parameter at fault.
    public let location: String
    /// What is wrong there.
    public let message: String

    /// An error at `location` (a folder, a file with its line and column, a parameter) saying `message`.
    public init(_ location: String, _ message: String) {
        self.location = location
        self.message = message
    }

    /// `location: message`, ready to show a user.
    public var description: String { "\(location): \(message)" }
}
