/// A file that does not hold what its format promises: where (the file, with its line and column
/// when the format has lines) and what is wrong there. The modules above turn it into their own
/// error type with the same two parts, so a message reads the same whichever module read the file.
package struct FormatError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The file or data at fault, with the line and column when the format has them:
    /// `data.csv: line 12, column "ax"`.
    package let location: String
    /// What is wrong there.
    package let message: String

    package init(_ location: String, _ message: String) {
        self.location = location
        self.message = message
    }

    /// `location: message`.
    package var description: String { "\(location): \(message)" }
}
