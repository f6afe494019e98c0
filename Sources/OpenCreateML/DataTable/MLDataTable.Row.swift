extension MLDataTable {
    /// One row of a table: a collection of (column name, value) pairs in column order.
    ///
    /// ```swift
    /// let row = table.rows[0]
    /// row["age"]             // MLDataValue?, nil when the table has no "age" column
    /// row["age", Int.self]   // Int?, nil also when the value is missing or not an integer
    /// ```
    public struct Row: Collection, Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
        let table: MLDataTable
        let index: Int

        /// A (column name, value) pair.
        public typealias Element = (String, MLDataValue)

        /// The value in the named column (`.invalid` when missing), or nil when there is no such
        /// column.
        public subscript(key: String) -> MLDataValue? {
            table.index(of: key).map { table.columns[$0][index] }
        }

        /// The value in the named column as a `T`, or nil when there is no such column, the value is
        /// missing, or it is of another kind.
        public subscript<T: MLDataValueConvertible>(key: String, type: T.Type) -> T? {
            self[key].flatMap { $0.isValid ? T(from: $0) : nil }
        }

        /// The position of the named column in the row, or nil.
        public func index(forKey key: String) -> Int? { table.index(of: key) }

        /// The column names, in order.
        public var keys: MLDataTable.ColumnNames { table.columnNames }

        /// The values, in column order.
        public var values: Values { Values(row: self) }

        /// The position of the first pair (always 0).
        public var startIndex: Int { 0 }
        /// The position after the last pair (the column count).
        public var endIndex: Int { table.names.count }
        /// The position after `i`.
        public func index(after i: Int) -> Int { i + 1 }
        /// The (column name, value) pair at `position`.
        public subscript(position: Int) -> (String, MLDataValue) { (table.names[position], table.columns[position][index]) }

        /// The values of a row, in column order.
        public struct Values: RandomAccessCollection, Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
            let row: Row
            /// The position of the first value (always 0).
            public var startIndex: Int { 0 }
            /// The position after the last value (the column count).
            public var endIndex: Int { row.table.names.count }
            /// The value at `position`.
            public subscript(position: Int) -> MLDataValue { row.table.columns[position][row.index] }
            /// The values in brackets.
            public var description: String { "[" + map(\.description).joined(separator: ", ") + "]" }
            /// The values' debug descriptions in brackets.
            public var debugDescription: String { "[" + map(\.debugDescription).joined(separator: ", ") + "]" }
        }

        /// The pairs in braces: `{name: Alice, age: 30}`.
        public var description: String { "{" + map { "\($0.0): \($0.1.description)" }.joined(separator: ", ") + "}" }
        /// The pairs with the values' debug descriptions.
        public var debugDescription: String { "{" + map { "\($0.0): \($0.1.debugDescription)" }.joined(separator: ", ") + "}" }

        /// Whether two rows hold the same names and values.
        public static func == (lhs: Row, rhs: Row) -> Bool {
            lhs.table.names == rhs.table.names && Array(lhs.values) == Array(rhs.values)
        }

        /// Hashes the names and values.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(table.names)
            hasher.combine(Array(values))
        }
    }
}
