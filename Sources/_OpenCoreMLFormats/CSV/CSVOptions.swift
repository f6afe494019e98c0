/// How ``CSVReader`` reads a file: Create ML's `MLDataTable.ParsingOptions`, field for field
/// (OpenCreateML's `ParsingOptions` documents each one for users and converts to this).
///
/// The delimiter, quote, escape and comment are each one ASCII character (or empty, where that
/// turns the feature off); the line terminator is `"\n"`, `"\r\n"`, `"\r"` or one ASCII character.
package struct CSVOptions: Hashable, Sendable {
    /// Whether the first row (after `skipRows`) names the columns; without one they are `X1`, `X2`, ….
    package var containsHeader: Bool
    /// The character between fields.
    package var delimiter: String
    /// The character that starts a comment (outside quotes); empty for none.
    package var comment: String
    /// The character that starts a C escape inside a quoted field; empty for none.
    package var escape: String
    /// Whether two quotes in a row inside a quoted field stand for one.
    package var doubleQuote: Bool
    /// The character that quotes a field; empty for no quoting.
    package var quote: String
    /// Whether spaces after a delimiter are skipped.
    package var skipInitialSpaces: Bool
    /// Unquoted field texts that mean "missing", besides an empty field.
    package var missingValues: [String]
    /// What ends a row; with `"\n"` a `"\r"` before it is dropped too.
    package var lineTerminator: String
    /// The names of the columns to keep, or nil for all.
    package var selectColumns: [String]?
    /// The largest number of data rows to read, or nil for all.
    package var maxRows: Int?
    /// The number of lines to skip before the header.
    package var skipRows: Int

    /// Create ML's defaults for anything not given.
    package init(containsHeader: Bool = true, delimiter: String = ",", comment: String = "", escape: String = "\\",
                 doubleQuote: Bool = true, quote: String = "\"", skipInitialSpaces: Bool = true,
                 missingValues: [String] = ["NA"], lineTerminator: String = "\n", selectColumns: [String]? = nil,
                 maxRows: Int? = nil, skipRows: Int = 0) {
        self.containsHeader = containsHeader
        self.delimiter = delimiter
        self.comment = comment
        self.escape = escape
        self.doubleQuote = doubleQuote
        self.quote = quote
        self.skipInitialSpaces = skipInitialSpaces
        self.missingValues = missingValues
        self.lineTerminator = lineTerminator
        self.selectColumns = selectColumns
        self.maxRows = maxRows
        self.skipRows = skipRows
    }
}
