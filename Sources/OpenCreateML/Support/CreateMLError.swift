import CoreMLSpec

/// An error from a Create ML trainer: what went wrong and where (a folder, a file, a parameter, a
/// table's row and column).
public struct CreateMLError: LocatedError, Sendable {
    /// The folder, file (with line and column), table or parameter at fault; for a table, with the
    /// row and column.
    public let location: String
    /// What is wrong there.
    public let message: String
    /// For a value in a table, its row (0 for the first; an OpenCoreML addition, so that a tool that
    /// read the table from a file can name the file's line).
    public let row: Int?
    /// For a value in a table, its column.
    public let column: String?

    /// An error at `location` (a folder, a file with its line and column, a parameter) saying `message`.
    public init(_ location: String, _ message: String) {
        self.location = location
        self.message = message
        row = nil
        column = nil
    }

    /// An error about the value at `row` (0 for the first) and `column` of the table `table`.
    public init(_ table: String, _ message: String, row: Int, column: String?) {
        location = "\(table), row \(row + 1)" + (column.map { ", column '\($0)'" } ?? "")
        self.message = message
        self.row = row
        self.column = column
    }

    /// `location: message`, ready to show a user.
    public var description: String { "\(location): \(message)" }
}
