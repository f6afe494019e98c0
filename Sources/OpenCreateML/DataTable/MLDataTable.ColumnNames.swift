extension MLDataTable {
    /// The names of a table's columns, in column order.
    ///
    /// A random-access collection of strings; `Array(table.columnNames)` gives a `[String]`.
    public struct ColumnNames: RandomAccessCollection, Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
        let names: [String]

        /// The position of the first name (always 0).
        public var startIndex: Int { 0 }
        /// The position after the last name (the count).
        public var endIndex: Int { names.count }
        /// The name at `position`.
        public subscript(position: Int) -> String { names[position] }

        /// The names in brackets: `[a, b, c]`.
        public var description: String { "[" + names.joined(separator: ", ") + "]" }
        /// The names quoted, in brackets.
        public var debugDescription: String { names.debugDescription }
    }
}
