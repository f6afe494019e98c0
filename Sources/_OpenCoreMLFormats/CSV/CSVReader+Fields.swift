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
        var rows = try self.rows(bytes)
        var spans: [Span] = []
        spans.reserveCapacity(Swift.min(bytes.count / 8, 1 << 22))
        _ = try rows.next(Int.max, into: &spans)
        return Fields(names: rows.names, selected: rows.selected, spans: spans, rowCount: rows.rowCount)
    }

    /// A cursor over the data rows of a file whose header has been read: ``next(_:into:)`` hands
    /// out the selected fields of up to N rows at a time, so a reader can keep one block of spans
    /// instead of the whole file's.
    package struct Rows {
        /// All the file's column names (from the header, or `X1`, `X2`, … without one).
        package let names: [String]
        /// The indices (into ``names``) of the columns kept, in file order.
        package let selected: [Int]
        /// How many data rows have been handed out so far.
        package private(set) var rowCount = 0
        var tokenizer: Tokenizer
        /// Without a header, the first row, read to count the columns and not yet handed out.
        var pendingFirstRow: [Span]?
        let limit: Int
        var row: [Span] = []

        /// Appends the selected fields of up to `count` more data rows to `spans`, row after row;
        /// returns how many rows it appended (0 at the end). Throws when a row's field count
        /// differs from the header's.
        package mutating func next(_ count: Int, into spans: inout [Span]) throws(FormatError) -> Int {
            let reader = tokenizer.reader, bytes = tokenizer.bytes
            let width = names.count
            var added = 0
            if let first = pendingFirstRow, count > 0 {
                pendingFirstRow = nil
                if rowCount < limit {
                    spans.append(contentsOf: selected.map { first[$0] })
                    rowCount += 1
                    added += 1
                }
            }
            while added < count, rowCount < limit {
                row.removeAll(keepingCapacity: true)
                let rowStart = tokenizer.position
                guard try tokenizer.nextRow(into: &row) else { break }
                if row.count != width {
                    if row.count < width {
                        throw reader.error(bytes, at: row.last.map { $0.start } ?? rowStart, column: names[row.count],
                                           "expected \(width) fields, found \(row.count)")
                    }
                    throw reader.error(bytes, at: row[width].start, column: nil, "expected \(width) fields, found \(row.count)")
                }
                if selected.count == width { spans.append(contentsOf: row) } else { for c in selected { spans.append(row[c]) } }
                rowCount += 1
                added += 1
            }
            return added
        }
    }

    /// Reads the header of `bytes` (a whole file) and returns a cursor at the first data row.
    /// Throws when the file is empty, a column name is not UTF-8 or appears twice, or
    /// `selectColumns` names a column the file lacks.
    package func rows(_ bytes: UnsafeBufferPointer<UInt8>) throws(FormatError) -> Rows {
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

        var row: [Span] = []
        row.reserveCapacity(width)
        return Rows(names: names, selected: selected, tokenizer: tokenizer,
                    pendingFirstRow: options.containsHeader ? nil : firstRow, limit: options.maxRows ?? Int.max, row: row)
    }
}
