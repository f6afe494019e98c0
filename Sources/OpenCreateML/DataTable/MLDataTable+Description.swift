import Foundation

extension MLDataTable {
    /// The number of rows `description` prints.
    static let describedRowCount = 10
    /// The longest cell text `description` prints before cutting it with "…".
    static let describedCellWidth = 24

    /// The table as a playground prints it: the columns and their kinds, the row count, then the
    /// first rows in a text grid and the table's shape.
    ///
    /// ```
    /// Columns:
    ///     name    String
    ///     age     Int
    /// Rows: 2
    /// Data:
    /// +-------+-----+
    /// | name  | age |
    /// +-------+-----+
    /// | Alice | 30  |
    /// | Bob   | nil |
    /// +-------+-----+
    /// [2 rows x 2 columns]
    /// ```
    ///
    /// Missing values print as `nil`; an invalid table prints its error.
    public var description: String {
        var lines: [String] = []
        if let failure { lines.append("Invalid table: \(failure.description)") }
        lines.append("Columns:")
        let nameWidth = names.map(\.count).max() ?? 0
        for (name, column) in zip(names, columns) {
            lines.append("    " + name + String(repeating: " ", count: nameWidth - name.count) + "    " + column.type.description)
        }
        lines.append("Rows: \(rowCount)")
        if !names.isEmpty {
            lines.append("Data:")
            let shown = Swift.min(rowCount, Self.describedRowCount)
            let cells: [[String]] = (0..<shown).map { row in columns.map { Self.cellText($0[row]) } }
            let widths = names.indices.map { c in ([Self.clip(names[c])] + cells.map { $0[c] }).map(\.count).max() ?? 0 }
            let rule = "+" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "+") + "+"
            func line(_ texts: [String]) -> String {
                "|" + zip(texts, widths).map { " " + $0 + String(repeating: " ", count: $1 - $0.count) + " " }.joined(separator: "|") + "|"
            }
            lines.append(rule)
            lines.append(line(names.map(Self.clip)))
            lines.append(rule)
            for row in cells { lines.append(line(row)) }
            if rowCount > shown { lines.append(line(widths.map { _ in "…" })) }
            lines.append(rule)
        }
        lines.append("[\(rowCount) rows x \(names.count) columns]")
        return lines.joined(separator: "\n")
    }

    static func clip(_ text: String) -> String {
        let flat = text.replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\t", with: "\\t")
        return flat.count > describedCellWidth ? String(flat.prefix(describedCellWidth - 1)) + "…" : flat
    }

    static func cellText(_ value: MLDataValue) -> String { clip(value.description) }
}
