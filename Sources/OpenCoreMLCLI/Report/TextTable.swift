/// A plain-text table: columns padded to their widest cell (in terminal columns, so emoji and CJK
/// count twice), numbers right-aligned.
struct TextTable {
    enum Alignment { case left, right }

    var headers: [String]
    var alignments: [Alignment]
    var rows: [[String]] = []

    init(_ headers: [String], alignments: [Alignment]? = nil) {
        self.headers = headers
        self.alignments = alignments ?? headers.map { _ in .left }
    }

    /// Adds a row; cells are escaped for the terminal (they often hold a model's strings).
    mutating func append(_ row: [String]) { rows.append(row.map { $0.terminalEscaped() }) }

    /// The table's lines, each prefixed with `indent`; no header line when all headers are empty.
    func render(indent: String = "  ") -> String {
        let all = (headers.allSatisfy(\.isEmpty) ? [] : [headers]) + rows
        var widths = [Int](repeating: 0, count: headers.count)
        for row in all {
            for (column, cell) in row.enumerated() where column < widths.count {
                widths[column] = max(widths[column], displayWidth(cell))
            }
        }
        return all.map { row in
            let cells = row.enumerated().map { column, cell -> String in
                let padding = String(repeating: " ", count: max(0, widths[column] - displayWidth(cell)))
                let isLast = column == row.count - 1
                return alignments[column] == .right ? padding + cell : (isLast ? cell : cell + padding)
            }
            let line = indent + cells.joined(separator: "  ")
            return String(line.reversed().drop(while: { $0 == " " }).reversed())
        }.joined(separator: "\n")
    }
}

/// The columns `text` takes in a terminal: 2 for emoji and East Asian wide characters, else 1.
func displayWidth(_ text: String) -> Int {
    text.reduce(0) { width, character in
        let scalars = character.unicodeScalars
        let first = scalars.first!
        let isEmoji = first.properties.isEmojiPresentation
            || (first.properties.isEmoji && scalars.contains("\u{FE0F}"))
            || scalars.count > 1 && first.properties.isEmoji && scalars.contains { $0.properties.isEmojiModifier || $0 == "\u{200D}" }
        let isWide = first.value >= 0x1100 && wideRanges.contains { $0.contains(first.value) }
        return width + (isEmoji || isWide ? 2 : 1)
    }
}

/// East Asian wide blocks: Hangul Jamo, CJK, Hiragana and Katakana, Hangul syllables, fullwidth forms.
private let wideRanges: [ClosedRange<UInt32>] = [
    0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
    0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD,
]

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
