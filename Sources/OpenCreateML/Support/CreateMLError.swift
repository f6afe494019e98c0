import CoreMLSpec

/// An error from a Create ML trainer: what went wrong and where (a folder, a file, a parameter).
public struct CreateMLError: LocatedError, Sendable {
    public let location: String
    public let message: String

    public init(_ location: String, _ message: String) {
        self.location = location
        self.message = message
    }

    public var description: String { "\(location): \(message)" }
}
