/// Why an image could not be read: the file (or the name given for in-memory data) and the reason.
package struct ImageError: Error, CustomStringConvertible, Sendable, Equatable {
    package let file: String
    package let reason: String

    package init(file: String, reason: String) {
        self.file = file
        self.reason = reason
    }

    package var description: String { "\(file): \(reason)" }
}
