extension MLDataTable {
    /// The rows of a table, in order.
    ///
    /// ```swift
    /// for row in table.rows {
    ///     print(row["name"]?.stringValue ?? "-", row["age"]?.intValue ?? 0)
    /// }
    /// ```
    public struct Rows: RandomAccessCollection, Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
        let table: MLDataTable

        /// The position of the first row (always 0).
        public var startIndex: Int { 0 }
        /// The position after the last row (the row count).
        public var endIndex: Int { table.rowCount }
        /// The row at `position`.
        public subscript(position: Int) -> MLDataTable.Row { Row(table: table, index: position) }

        /// The rows, one per line.
        public var description: String { map(\.description).joined(separator: "\n") }
        /// The same as `description`.
        public var debugDescription: String { description }
    }
}
