/// Why an image could not be read: the file (or the name given for in-memory data) and the reason.
public struct ImageError: Error, CustomStringConvertible, Sendable, Equatable {
    public let file: String
    public let reason: String

    public init(file: String, reason: String) {
        self.file = file
        self.reason = reason
    }

    public var description: String { "\(file): \(reason)" }
}
