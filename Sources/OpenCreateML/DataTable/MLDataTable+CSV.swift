import Foundation

extension MLDataTable {
    /// Reads a table from a CSV or JSON file.
    ///
    /// A file whose name ends in `.json` is read as JSON: an array of objects, one per row, whose
    /// keys name the columns (in order of first appearance); `options` are ignored. Any other file
    /// is read as CSV with `options` (a `.tsv` file needs `delimiter: "\t"`).
    ///
    /// CSV columns take the narrowest kind that fits every value that is not missing: integers,
    /// else doubles, else strings. Empty fields and the `missingValues` texts are missing values.
    /// Quoted fields may hold delimiters, line breaks and doubled quotes.
    ///
    /// - Throws: `CreateMLError` whose message names the file, the line (counting from 1, header
    ///   included) and the column: `data.csv: line 12, column "ax": expected 7 fields, found 6`.
    ///   Unreadable files, empty files, invalid UTF-8, unterminated quotes, rows with too few or too
    ///   many fields, duplicate column names, and values that do not fit a forced column type all
    ///   throw; none of them traps.
    public init(contentsOf url: URL, options: MLDataTable.ParsingOptions = ParsingOptions()) throws {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw CreateMLError(url.path, "cannot read the file (\(error.localizedDescription))")
        }
        if url.pathExtension.lowercased() == "json" {
            self = try data.withUnsafeBytes { raw in
                var reader = JSONTableReader(location: url.path, bytes: raw.bindMemory(to: UInt8.self))
                return try reader.read()
            }
        } else {
            let reader = try CSVReader(location: url.path, options: options)
            self = try data.withUnsafeBytes { raw in try reader.read(raw.bindMemory(to: UInt8.self)) }
        }
    }
}

/// Reads CSV bytes into a table in two passes: the first finds every field's bytes (one scan of
/// the file), the second turns each column's fields into one typed array.
struct CSVReader {
    let location: String
    let options: MLDataTable.ParsingOptions
    let delimiter: UInt8
    let quote: UInt8?
    let escape: UInt8?
    let comment: UInt8?
    let terminator: UInt8
    /// Whether a carriage return before the terminator is dropped (terminator "\n" or "\r\n").
    let dropsCarriageReturn: Bool
    /// Whether two quotes in a row inside a quoted field stand for one.
    let doubleQuote: Bool
    let missingTokens: [[UInt8]]

    /// Where one field's text lies in the file.
    struct Span {
        var start: Int
        var end: Int
        /// `quoted` and `needsUnescaping` bits.
        var flags: UInt8
        static let quoted: UInt8 = 1
        static let needsUnescaping: UInt8 = 2
        var isQuoted: Bool { flags & Span.quoted != 0 }
    }

    init(location: String, options: MLDataTable.ParsingOptions) throws {
        self.location = location
        self.options = options
        func character(_ text: String, _ name: String, allowEmpty: Bool) throws -> UInt8? {
            if text.isEmpty {
                if allowEmpty { return nil }
                throw CreateMLError(location, "the \(name) must be one character, got an empty string")
            }
            guard text.utf8.count == 1, let byte = text.utf8.first, byte < 0x80 else {
                throw CreateMLError(location, "the \(name) must be one ASCII character, got \(text.debugDescription) (longer ones are not supported)")
            }
            return byte
        }
        delimiter = try character(options.delimiter, "delimiter", allowEmpty: false)!
        quote = try character(options.quote, "quote", allowEmpty: true)
        let escapeCharacter = try character(options.escape, "escape", allowEmpty: true)
        // An escape character equal to the quote can only mean doubled quotes.
        escape = escapeCharacter == quote ? nil : escapeCharacter
        doubleQuote = options.doubleQuote || (escapeCharacter != nil && escapeCharacter == quote)
        comment = try character(options.comment, "comment", allowEmpty: true)
        switch options.lineTerminator {
        case "\n", "\r\n":
            terminator = UInt8(ascii: "\n")
            dropsCarriageReturn = true
        default:
            terminator = try character(options.lineTerminator, "line terminator", allowEmpty: false)!
            dropsCarriageReturn = false
        }
        guard delimiter != terminator, delimiter != quote, delimiter != comment else {
            throw CreateMLError(location, "the delimiter \(options.delimiter.debugDescription) is also the quote, comment or line terminator")
        }
        missingTokens = options.missingValues.filter { !$0.isEmpty }.map { Array($0.utf8) }
        if let negative = [options.skipRows, options.maxRows ?? 0].first(where: { $0 < 0 }) {
            throw CreateMLError(location, "skipRows and maxRows must not be negative, got \(negative)")
        }
    }

    // MARK: Errors

    /// The 1-based line holding byte `offset`.
    func line(at offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var lines = 1
        for i in 0..<Swift.min(offset, bytes.count) where bytes[i] == terminator { lines += 1 }
        return lines
    }

    func error(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int, column: String?, _ message: String) -> CreateMLError {
        let columnPart = column.map { ", column \"\($0)\"" } ?? ""
        return CreateMLError("\(location): line \(line(at: offset, in: bytes))\(columnPart)", message)
    }

    // MARK: First pass: fields

    /// A cursor over the file's bytes that cuts it into rows of field spans.
    struct Tokenizer {
        let reader: CSVReader
        let bytes: UnsafeBufferPointer<UInt8>
        var position: Int
        /// Names for fields by position, for error messages (empty while reading the header).
        var columnNames: [String] = []

        func columnName(_ index: Int) -> String {
            index < columnNames.count ? columnNames[index] : "field \(index + 1)"
        }

        func isSpace(_ b: UInt8) -> Bool { (b == 0x20 || b == 0x09) && b != reader.delimiter }

        /// Moves past the next terminator (or to the end).
        mutating func skipLine() {
            while position < bytes.count, bytes[position] != reader.terminator { position += 1 }
            if position < bytes.count { position += 1 }
        }

        /// Whether the line at `position` holds nothing but spaces, or spaces and a comment.
        func lineIsBlank() -> Bool {
            var i = position
            while i < bytes.count {
                let b = bytes[i]
                if b == reader.terminator { return true }
                if let comment = reader.comment, b == comment { return true }
                if b == 0x0D && reader.dropsCarriageReturn { i += 1; continue }
                if !isSpace(b) { return false }
                i += 1
            }
            return true
        }

        /// Appends the next row's fields to `fields`; false at the end of the file. Blank and
        /// comment lines are skipped.
        mutating func nextRow(into fields: inout [Span]) throws -> Bool {
            while position < bytes.count, lineIsBlank() { skipLine() }
            guard position < bytes.count else { return false }
            let first = fields.count
            let n = bytes.count
            let delimiter = reader.delimiter, terminator = reader.terminator
            let comment = reader.comment ?? delimiter
            while true {
                if reader.options.skipInitialSpaces {
                    while position < n, bytes[position] == 0x20, delimiter != 0x20 { position += 1 }
                }
                if let quote = reader.quote, position < n, bytes[position] == quote {
                    let open = position
                    position += 1
                    let start = position
                    var flags = Span.quoted
                    var end = -1
                    while position < n {
                        let b = bytes[position]
                        if let escape = reader.escape, b == escape {
                            flags |= Span.needsUnescaping
                            position += 2
                            continue
                        }
                        if b == quote {
                            if reader.doubleQuote, position + 1 < n, bytes[position + 1] == quote {
                                flags |= Span.needsUnescaping
                                position += 2
                                continue
                            }
                            end = position
                            position += 1
                            break
                        }
                        position += 1
                    }
                    guard end >= 0 else {
                        throw reader.error(bytes, at: open, column: columnName(fields.count - first),
                                           "the quoted field that starts here is never closed")
                    }
                    while position < n, bytes[position] == 0x20, delimiter != 0x20 { position += 1 }
                    fields.append(Span(start: start, end: end, flags: flags))
                } else {
                    let start = position
                    while position < n {
                        let b = bytes[position]
                        if b == delimiter || b == terminator || b == comment { break }
                        position += 1
                    }
                    var end = position
                    if reader.dropsCarriageReturn, end > start, bytes[end - 1] == 0x0D { end -= 1 }
                    fields.append(Span(start: start, end: end, flags: 0))
                }
                guard position < n else { return true }
                let b = bytes[position]
                if b == delimiter {
                    position += 1
                    continue
                }
                if b == terminator {
                    position += 1
                    return true
                }
                if reader.dropsCarriageReturn, b == 0x0D, position + 1 >= n || bytes[position + 1] == terminator {
                    position += 1
                    if position < n { position += 1 }
                    return true
                }
                if let c = reader.comment, b == c {
                    skipLine()
                    return true
                }
                throw reader.error(bytes, at: position, column: columnName(fields.count - first - 1),
                                   "unexpected text after the closing quote (expected a delimiter or the end of the line)")
            }
        }
    }

    // MARK: Reading

    func read(_ bytes: UnsafeBufferPointer<UInt8>) throws -> MLDataTable {
        var tokenizer = Tokenizer(reader: self, bytes: bytes, position: 0)
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { tokenizer.position = 3 }
        for _ in 0..<options.skipRows where tokenizer.position < bytes.count { tokenizer.skipLine() }

        // The header, or the first row when there is none.
        var firstRow: [Span] = []
        guard try tokenizer.nextRow(into: &firstRow) else {
            throw CreateMLError(location, "the file is empty: it has no header and no rows")
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
                throw CreateMLError(location, "selectColumns names \"\(name)\", which is not a column of the file (columns: \(nameList(names, quoted: true)))")
            }
            selected = (0..<width).filter { wantedSet.contains(names[$0]) }
        }
        for (name, type) in options.columnTypes where ![.int, .double, .string].contains(type) {
            throw CreateMLError(location, "columnTypes: column \"\(name)\" cannot be forced to \(type); only Int, Double and String are")
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

        // Second pass: one typed array per column.
        var table = MLDataTable()
        table.rowCount = rowCount
        for (k, c) in selected.enumerated() {
            let column = try makeColumn(named: names[c], spans: spans, stride: selected.count, offset: k, rows: rowCount, bytes: bytes)
            table.names.append(names[c])
            table.columns.append(column)
        }
        if table.names.isEmpty { table.rowCount = 0 }
        return table
    }

    // MARK: Second pass: values

    func isMissing(_ span: Span, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if span.isQuoted { return false }
        let length = span.end - span.start
        if length == 0 { return true }
        for token in missingTokens where token.count == length {
            var same = true
            for i in 0..<length where bytes[span.start + i] != token[i] {
                same = false
                break
            }
            if same { return true }
        }
        return false
    }

    /// The field's bytes without surrounding spaces, for number parsing.
    func trimmed(_ span: Span, _ bytes: UnsafeBufferPointer<UInt8>) -> Range<Int> {
        var s = span.start, e = span.end
        while s < e, bytes[s] == 0x20 || bytes[s] == 0x09 { s += 1 }
        while e > s, bytes[e - 1] == 0x20 || bytes[e - 1] == 0x09 { e -= 1 }
        return s..<e
    }

    func parseInt(_ span: Span, _ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        if span.flags & Span.needsUnescaping != 0 { return nil }
        let r = trimmed(span, bytes)
        var i = r.lowerBound
        guard i < r.upperBound else { return nil }
        var negative = false
        if bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") {
            negative = bytes[i] == UInt8(ascii: "-")
            i += 1
        }
        guard i < r.upperBound else { return nil }
        var value = 0
        while i < r.upperBound {
            let d = Int(bytes[i]) &- 48
            guard d >= 0, d <= 9 else { return nil }
            let m = value.multipliedReportingOverflow(by: 10)
            let a = negative ? m.partialValue.subtractingReportingOverflow(d) : m.partialValue.addingReportingOverflow(d)
            if m.overflow || a.overflow { return nil }
            value = a.partialValue
            i += 1
        }
        return value
    }

    func parseDouble(_ span: Span, _ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        if span.flags & Span.needsUnescaping != 0 { return nil }
        let r = trimmed(span, bytes)
        guard !r.isEmpty, r.count < 400, Self.looksLikeDouble(bytes, r) else { return nil }
        return Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[r]), as: UTF8.self))
    }

    /// Whether the bytes are a decimal number (`-1.5e3`, `.5`, `3.`) or `nan`/`inf`/`infinity` in
    /// any case: no hexadecimal, no other text.
    static func looksLikeDouble(_ bytes: UnsafeBufferPointer<UInt8>, _ r: Range<Int>) -> Bool {
        var i = r.lowerBound
        if bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") { i += 1 }
        let rest = r.upperBound - i
        if rest == 3 || rest == 8 {
            let word = String(decoding: UnsafeBufferPointer(rebasing: bytes[i..<r.upperBound]), as: UTF8.self).lowercased()
            if word == "nan" || word == "inf" || word == "infinity" { return true }
        }
        func isDigit(_ j: Int) -> Bool { j < r.upperBound && bytes[j] >= 48 && bytes[j] <= 57 }
        var digits = 0
        while isDigit(i) { i += 1; digits += 1 }
        if i < r.upperBound, bytes[i] == UInt8(ascii: ".") {
            i += 1
            while isDigit(i) { i += 1; digits += 1 }
        }
        guard digits > 0 else { return false }
        if i < r.upperBound, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < r.upperBound, bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") { i += 1 }
            guard isDigit(i) else { return false }
            while isDigit(i) { i += 1 }
        }
        return i == r.upperBound
    }

    /// The field's text: unescaped when needed, validated as UTF-8 (nil when it is not).
    func text(_ span: Span, in bytes: UnsafeBufferPointer<UInt8>) throws -> String {
        if span.flags & Span.needsUnescaping == 0 {
            guard let s = Self.decode(UnsafeBufferPointer(rebasing: bytes[span.start..<span.end])) else { throw InvalidText() }
            return s
        }
        var out: [UInt8] = []
        out.reserveCapacity(span.end - span.start)
        var i = span.start
        while i < span.end {
            let b = bytes[i]
            if let escape, b == escape, i + 1 < span.end {
                let next = bytes[i + 1]
                switch next {
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "0"): out.append(0x00)
                default: out.append(next)
                }
                i += 2
            } else if let quote, b == quote, doubleQuote, i + 1 < span.end, bytes[i + 1] == quote {
                out.append(quote)
                i += 2
            } else {
                out.append(b)
                i += 1
            }
        }
        guard let s = out.withUnsafeBufferPointer({ Self.decode($0) }) else { throw InvalidText() }
        return s
    }

    struct InvalidText: Error {}

    /// The bytes as a string, or nil when they are not valid UTF-8.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let s = String(decoding: bytes, as: UTF8.self)
        for b in bytes where b >= 0x80 {
            // Decoding replaced invalid sequences with U+FFFD; the text then differs from the bytes.
            return s.utf8.elementsEqual(bytes) ? s : nil
        }
        return s
    }

    func makeColumn(named name: String, spans: [Span], stride: Int, offset: Int, rows: Int,
                    bytes: UnsafeBufferPointer<UInt8>) throws -> ColumnStorage {
        var missing = [Bool](repeating: false, count: rows)
        var anyPresent = false
        for r in 0..<rows where isMissing(spans[r * stride + offset], bytes) { missing[r] = true }
        anyPresent = missing.contains(false)
        let forced = options.columnTypes[name]

        func fail(_ span: Span, _ what: String) -> CreateMLError {
            let shown = (try? text(span, in: bytes)).map { $0.count > 40 ? String($0.prefix(40)) + "…" : $0 } ?? "(not UTF-8)"
            return error(bytes, at: span.start, column: name, "value \(shown.debugDescription) is not \(what)")
        }

        // Integers, when every value parses as one.
        if forced == .int || (forced == nil && anyPresent) {
            var ints = [Int](repeating: 0, count: rows)
            var ok = true
            for r in 0..<rows where !missing[r] {
                let span = spans[r * stride + offset]
                guard let v = parseInt(span, bytes) else {
                    if forced == .int { throw fail(span, "an integer") }
                    ok = false
                    break
                }
                ints[r] = v
            }
            if ok { return ColumnStorage(.int(ints), missing: missing) }
        }
        // Doubles, when every value parses as one.
        if forced == .double || (forced == nil && anyPresent) {
            var doubles = [Double](repeating: 0, count: rows)
            var ok = true
            for r in 0..<rows where !missing[r] {
                let span = spans[r * stride + offset]
                guard let v = parseDouble(span, bytes) else {
                    if forced == .double { throw fail(span, "a number") }
                    ok = false
                    break
                }
                doubles[r] = v
            }
            if ok { return ColumnStorage(.double(doubles), missing: missing) }
        }
        // Strings.
        var strings = [String](repeating: "", count: rows)
        for r in 0..<rows where !missing[r] {
            let span = spans[r * stride + offset]
            do { strings[r] = try text(span, in: bytes) } catch {
                throw self.error(bytes, at: span.start, column: name, "the value is not valid UTF-8 text")
            }
        }
        return ColumnStorage(.string(strings), missing: missing)
    }
}
