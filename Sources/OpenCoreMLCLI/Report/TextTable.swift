/// A plain-text table: columns padded to their widest cell, numbers right-aligned.
struct TextTable {
    enum Alignment { case left, right }

    var headers: [String]
    var alignments: [Alignment]
    var rows: [[String]] = []

    init(_ headers: [String], alignments: [Alignment]? = nil) {
        self.headers = headers
        self.alignments = alignments ?? headers.map { _ in .left }
    }

    mutating func append(_ row: [String]) { rows.append(row) }

    /// The table's lines, each prefixed with `indent`; no header line when all headers are empty.
    func render(indent: String = "  ") -> String {
        let all = (headers.allSatisfy(\.isEmpty) ? [] : [headers]) + rows
        var widths = [Int](repeating: 0, count: headers.count)
        for row in all {
            for (column, cell) in row.enumerated() where column < widths.count {
                widths[column] = max(widths[column], cell.count)
            }
        }
        return all.map { row in
            let cells = row.enumerated().map { column, cell -> String in
                let padding = String(repeating: " ", count: max(0, widths[column] - cell.count))
                let isLast = column == row.count - 1
                return alignments[column] == .right ? padding + cell : (isLast ? cell : cell + padding)
            }
            let line = indent + cells.joined(separator: "  ")
            return String(line.reversed().drop(while: { $0 == " " }).reversed())
        }.joined(separator: "\n")
    }
}

/// `585958` → `585,958`.
func grouped(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var result = ""
    for (index, character) in digits.enumerated() {
        if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
        result.append(character)
    }
    return (value < 0 ? "-" : "") + result
}

/// A number without a trailing `.0`, in the shortest form that reads back the same.
func formatted(_ value: Double) -> String {
    if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
    return String(value)
}
