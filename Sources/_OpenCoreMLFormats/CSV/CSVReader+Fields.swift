extension CSVReader {
    /// Every field of a file, found in one scan: the column names and the data rows' spans, row
    /// after row, for the selected columns only.
    package struct Fields {
        /// All the file's column names (from the header, or `X1`, `X2`, … without one).
        package var names: [String]
        /// The indices (into ``names``) of the columns kept, in file order.
        package var selected: [Int]
        /// `rowCount × selected.count` spans, row after row.
        package var spans: [Span]
        package var rowCount: Int
    }

    /// The header and every data row of `bytes` (a whole file), honouring `skipRows`, the header,
    /// `selectColumns` and `maxRows`. Throws when the file is empty, a column name is not UTF-8 or
    /// appears twice, `selectColumns` names a column the file lacks, or a row's field count differs
    /// from the header's.
    package func fields(_ bytes: UnsafeBufferPointer<UInt8>) throws(FormatError) -> Fields {
        var tokenizer = tokenizer(bytes)

        // The header, or the first row when there is none.
        var firstRow: [Span] = []
        guard try tokenizer.nextRow(into: &firstRow) else {
            throw FormatError(location, "the file is empty: it has no header and no rows")
        }
        var names: [String]
        if options.containsHeader {
            names = []
            for (i, span) in firstRow.enumerated() {
                guard let text = try? self.text(span, in: bytes) else {
                    throw error(bytes, at: span.start, column: "field \(i + 1)", "the column name is not valid UTF-8 text")
                }
                names.append(text.isEmpty ? "X\(i + 1)" : text)
            }
            var seen: [String: Int] = [:]
            for (i, name) in names.enumerated() {
                if let earlier = seen[name] {
                    throw error(bytes, at: firstRow[i].start, column: name,
                                "duplicate column name (columns \(earlier + 1) and \(i + 1) are both named \"\(name)\")")
                }
                seen[name] = i
            }
        } else {
            names = (1...firstRow.count).map { "X\($0)" }
        }
        let width = names.count
        tokenizer.columnNames = names

        // Which columns to keep.
        var selected = Array(0..<width)
        if let wanted = options.selectColumns {
            let present = Set(names), wantedSet = Set(wanted)
            for name in wanted where !present.contains(name) {
                throw FormatError(location, "selectColumns names \"\(name)\", which is not a column of the file (columns: \(nameList(names, quoted: true)))")
            }
            selected = (0..<width).filter { wantedSet.contains(names[$0]) }
        }

        // All data rows' fields, row by row, selected columns only.
        var spans: [Span] = []
        var rowCount = 0
        var row: [Span] = []
        row.reserveCapacity(width)
        let limit = options.maxRows ?? Int.max
        if !options.containsHeader, limit > 0 {
            spans.append(contentsOf: selected.map { firstRow[$0] })
            rowCount = 1
        }
        spans.reserveCapacity(Swift.min(bytes.count / 8, 1 << 22))
        while rowCount < limit {
            row.removeAll(keepingCapacity: true)
            let rowStart = tokenizer.position
            guard try tokenizer.nextRow(into: &row) else { break }
            if row.count != width {
                if row.count < width {
                    throw error(bytes, at: row.last.map { $0.start } ?? rowStart, column: names[row.count],
                                "expected \(width) fields, found \(row.count)")
                }
                throw error(bytes, at: row[width].start, column: nil, "expected \(width) fields, found \(row.count)")
            }
            if selected.count == width { spans.append(contentsOf: row) } else { for c in selected { spans.append(row[c]) } }
            rowCount += 1
        }
        return Fields(names: names, selected: selected, spans: spans, rowCount: rowCount)
    }
}
