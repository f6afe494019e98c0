import _OpenCoreMLFormats

extension MLDataTable {
    /// How `init(contentsOf:options:)` reads a CSV file; JSON files ignore these options.
    ///
    /// ```swift
    /// var options = MLDataTable.ParsingOptions(containsHeader: false, delimiter: ";")
    /// options.missingValues = ["NA", "?"]
    /// let table = try MLDataTable(contentsOf: url, options: options)
    /// ```
    ///
    /// The delimiter, quote, escape and comment must each be one ASCII character (or empty, where
    /// that turns the feature off); the line terminator is `"\n"`, `"\r\n"`, `"\r"` or one ASCII
    /// character. Other values make reading throw (ours: Create ML accepts longer strings for some).
    public struct ParsingOptions: Hashable, Sendable {
        /// Whether the first row (after `skipRows`) names the columns. Without a header the columns
        /// are named `X1`, `X2`, … in file order.
        public var containsHeader: Bool {
            get { csvOptions.containsHeader }
            set { csvOptions.containsHeader = newValue }
        }
        /// The character between fields (default `","`; `"\t"` for tab-separated files).
        public var delimiter: String {
            get { csvOptions.delimiter }
            set { csvOptions.delimiter = newValue }
        }
        /// The character that starts a comment: outside quotes, the rest of the line is ignored, and
        /// a line that starts with it is skipped. Empty (the default) for no comments.
        public var comment: String {
            get { csvOptions.comment }
            set { csvOptions.comment = newValue }
        }
        /// The character that starts a C escape sequence inside a quoted field (default `"\\"`):
        /// `\n`, `\t`, `\r`, `\0`, `\\`, `\"` and an escaped quote character; any other escaped
        /// character stands for itself. Empty to turn escapes off. Unquoted fields are read as they
        /// are (ours: escapes apply inside quotes only).
        public var escape: String {
            get { csvOptions.escape }
            set { csvOptions.escape = newValue }
        }
        /// Whether two quote characters in a row inside a quoted field stand for one (default true).
        public var doubleQuote: Bool {
            get { csvOptions.doubleQuote }
            set { csvOptions.doubleQuote = newValue }
        }
        /// The character that quotes a field (default `"\""`); a quoted field may hold delimiters
        /// and line breaks. Empty to turn quoting off.
        public var quote: String {
            get { csvOptions.quote }
            set { csvOptions.quote = newValue }
        }
        /// Whether spaces after a delimiter are skipped (default true).
        public var skipInitialSpaces: Bool {
            get { csvOptions.skipInitialSpaces }
            set { csvOptions.skipInitialSpaces = newValue }
        }
        /// Field texts that mean "missing" (default `["NA"]`), besides an empty field. They apply to
        /// unquoted fields only: a quoted `"NA"` or `""` is a string (ours: Create ML does not say).
        public var missingValues: [String] {
            get { csvOptions.missingValues }
            set { csvOptions.missingValues = newValue }
        }
        /// What ends a row (default `"\n"`). With `"\n"`, a `"\r"` before it is dropped too, so files
        /// with Windows line ends read the same.
        public var lineTerminator: String {
            get { csvOptions.lineTerminator }
            set { csvOptions.lineTerminator = newValue }
        }
        /// The names of the columns to keep (in file order), or nil for all. Naming a column the file
        /// lacks makes reading throw.
        public var selectColumns: [String]? {
            get { csvOptions.selectColumns }
            set { csvOptions.selectColumns = newValue }
        }
        /// The largest number of data rows to read, or nil for all.
        public var maxRows: Int? {
            get { csvOptions.maxRows }
            set { csvOptions.maxRows = newValue }
        }
        /// The number of lines to skip at the start of the file, before the header.
        public var skipRows: Int {
            get { csvOptions.skipRows }
            set { csvOptions.skipRows = newValue }
        }
        /// Kinds to force on named columns instead of inferring them: `.int`, `.double` or
        /// `.string`. A value that does not parse as the forced kind makes reading throw, naming the
        /// line and column (ours: Create ML has no such option; readers that need numbers use it to
        /// report bad values precisely).
        public var columnTypes: [String: MLDataValue.ValueType]

        /// The options as the CSV reader takes them: all of the above but `columnTypes`, which
        /// typing the columns applies.
        var csvOptions: CSVOptions

        /// Options with Create ML's defaults for anything not given.
        public init(containsHeader: Bool = true, delimiter: String = ",", comment: String = "", escape: String = "\\",
                    doubleQuote: Bool = true, quote: String = "\"", skipInitialSpaces: Bool = true,
                    missingValues: [String] = ["NA"], lineTerminator: String = "\n", selectColumns: [String]? = nil,
                    maxRows: Int? = nil, skipRows: Int = 0) {
            csvOptions = CSVOptions(containsHeader: containsHeader, delimiter: delimiter, comment: comment, escape: escape,
                                    doubleQuote: doubleQuote, quote: quote, skipInitialSpaces: skipInitialSpaces,
                                    missingValues: missingValues, lineTerminator: lineTerminator, selectColumns: selectColumns,
                                    maxRows: maxRows, skipRows: skipRows)
            columnTypes = [:]
        }
    }
}
