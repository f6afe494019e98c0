import Foundation
import _OpenCoreMLFormats

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
    ///
    /// A CSV file is read a few megabytes at a time and its columns parsed in parallel
    /// (``CSVStreamReader``); the whole file is read at once only to report an error in it.
    public init(contentsOf url: URL, options: MLDataTable.ParsingOptions = ParsingOptions()) throws {
        if url.isFileURL, url.pathExtension.lowercased() != "json",
           let reader = try? CSVReader(location: url.path, options: options.csvOptions),
           let table = CSVStreamReader(path: url.path, reader: reader, columnTypes: options.columnTypes).read() {
            self = table
            return
        }
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
            let reader = try CreateMLError.reading { try CSVReader(location: url.path, options: options.csvOptions) }
            self = try data.withUnsafeBytes { raw in try reader.table(raw.bindMemory(to: UInt8.self), columnTypes: options.columnTypes) }
        }
    }
}

/// A table from CSV bytes, a block of rows at a time: the reader finds the fields of the next
/// `blockRows` rows (fewer for a very wide table), each column appends their values to its ``CSVColumnBuilder``, and the spans
/// are dropped before the next block, so the peak holds the file, the columns and one block of
/// spans (not every field's span at once).
extension CSVReader {
    func table(_ bytes: UnsafeBufferPointer<UInt8>, columnTypes: [String: MLDataValue.ValueType],
               blockRows: Int = 4_096) throws -> MLDataTable {
        for (name, type) in columnTypes where ![.int, .double, .string].contains(type) {
            throw CreateMLError(location, "columnTypes: column \"\(name)\" cannot be forced to \(type); only Int, Double and String are")
        }
        var rows = try CreateMLError.reading { try self.rows(bytes) }
        let stride = rows.selected.count
        var builders = rows.selected.map { CSVColumnBuilder(name: rows.names[$0], forced: columnTypes[rows.names[$0]]) }
        // A block holds at most about 4M spans (64 MB), fewer rows when the table is very wide.
        let blockRows = Swift.max(1, Swift.min(blockRows, (1 << 22) / Swift.max(1, stride)))
        var spans: [Span] = []
        spans.reserveCapacity(Swift.min(blockRows * stride, bytes.count / 2 + 1))
        while true {
            spans.removeAll(keepingCapacity: true)
            let base = rows.rowCount
            let count = try CreateMLError.reading { try rows.next(blockRows, into: &spans) }
            if count == 0 { break }
            for k in builders.indices {
                try builders[k].append(spans, stride: stride, offset: k, rows: count, base: base, reader: self, bytes: bytes,
                                       blockRows: blockRows)
            }
        }
        // Value errors are reported after the whole file is known to be well formed, first column first,
        // as when every column was typed after one scan of the file.
        for builder in builders { if let error = builder.error { throw error } }
        var table = MLDataTable()
        table.rowCount = rows.rowCount
        for builder in builders {
            table.names.append(builder.name)
            table.columns.append(builder.finish())
        }
        if table.names.isEmpty { table.rowCount = 0 }
        return table
    }
}

/// One CSV column being read block by block. It keeps the narrowest kind that fits every value so
/// far (integers, else doubles, else strings; a forced type from the start) and the missing mask.
/// Widening integers to doubles converts the values kept, unless one of them would not read back as
/// the same double from its text (`-0`, beyond 2^53), when the earlier rows' texts are read again;
/// widening to strings always reads the earlier rows' texts again, scanning the file from the start
/// for this one column (rare: a column is usually text from its first row).
struct CSVColumnBuilder {
    enum Kind { case int, double, string }
    let name: String
    let forced: MLDataValue.ValueType?
    var kind: Kind
    var ints: [Int] = []
    var doubles: [Double] = []
    var strings: [String] = []
    var missing: [Bool] = []
    var anyPresent = false
    /// Whether some integer kept would not equal its text read as a double (`-0`, |v| > 2^53).
    var intsInexactAsDoubles = false
    /// The first value error (a value not fitting the forced type, or text that is not UTF-8).
    var error: CreateMLError?
    /// Whether the earlier blocks' texts are gone (``CSVStreamReader``): a widening that would read
    /// them again sets ``restartAs`` instead and stops.
    var streaming = false
    /// Streaming: the kind to start this column as when the file is read again.
    var restartAs: Kind?

    /// `initial`: the kind to start as without a forced type (a streaming reader's second pass).
    init(name: String, forced: MLDataValue.ValueType?, initial: Kind? = nil) {
        self.name = name
        self.forced = forced
        kind = forced == .double ? .double : forced == .string ? .string : forced == .int ? .int : initial ?? .int
    }

    /// Room for `rows` values of the present kind and their missing marks.
    mutating func reserve(_ rows: Int) {
        missing.reserveCapacity(rows)
        switch kind {
        case .int: ints.reserveCapacity(rows)
        case .double: doubles.reserveCapacity(rows)
        case .string: strings.reserveCapacity(rows)
        }
    }

    mutating func append(_ spans: [CSVReader.Span], stride: Int, offset: Int, rows: Int, base: Int, reader: CSVReader,
                         bytes: UnsafeBufferPointer<UInt8>, blockRows: Int) throws {
        if error != nil || restartAs != nil { return }
        var r = 0
        while r < rows {
            let span = spans[r * stride + offset]
            let isMissing = reader.isMissing(span, bytes)
            if !isMissing { anyPresent = true }
            switch kind {
            case .int:
                if isMissing { ints.append(0); break }
                if let v = reader.parseInt(span, bytes) {
                    ints.append(v)
                    if v.magnitude > 1 << 53 || (v == 0 && bytes[reader.trimmed(span, bytes).lowerBound] == UInt8(ascii: "-")) {
                        intsInexactAsDoubles = true
                    }
                    break
                }
                if forced == .int { error = fail(span, "an integer", reader, bytes); return }
                // Widen to doubles (or strings, below, when this value is no number either).
                if intsInexactAsDoubles, streaming, base > 0 {
                    restartAs = reader.fastDouble(span, bytes) == nil ? .string : .double
                    return
                }
                if intsInexactAsDoubles {
                    doubles = []
                    doubles.reserveCapacity(ints.count + 1)
                    try rescan(rows: base, reader: reader, bytes: bytes, blockRows: blockRows) { span in
                        doubles.append(reader.isMissing(span, bytes) ? 0 : reader.fastDouble(span, bytes) ?? 0)
                    }
                    for q in 0..<r {
                        let earlier = spans[q * stride + offset]
                        doubles.append(reader.isMissing(earlier, bytes) ? 0 : reader.fastDouble(earlier, bytes) ?? 0)
                    }
                } else {
                    doubles = ints.map { Double($0) }
                }
                ints = []
                kind = .double
                continue  // this row again, as a double
            case .double:
                if isMissing { doubles.append(0); break }
                if let v = reader.fastDouble(span, bytes) { doubles.append(v); break }
                if forced == .double { error = fail(span, "a number", reader, bytes); return }
                if streaming, base > 0 {
                    restartAs = .string
                    return
                }
                doubles = []
                kind = .string
                strings.reserveCapacity(base + r + 1)
                try rescan(rows: base, reader: reader, bytes: bytes, blockRows: blockRows) { span in
                    if error == nil { strings.append(text(span, reader, bytes)) }
                }
                for q in 0..<r where error == nil { strings.append(text(spans[q * stride + offset], reader, bytes)) }
                if error != nil { return }
                continue  // this row again, as text
            case .string:
                strings.append(text(span, reader, bytes))
                if error != nil { return }
            }
            missing.append(isMissing)
            r += 1
        }
    }

    /// The finished column. Without a forced type, a column with no value at all is a string column.
    func finish() -> ColumnStorage {
        if forced == nil && !anyPresent { return ColumnStorage(.string(Array(repeating: "", count: missing.count)), missing: missing) }
        switch kind {
        case .int: return ColumnStorage(.int(ints), missing: missing)
        case .double: return ColumnStorage(.double(doubles), missing: missing)
        case .string: return ColumnStorage(.string(strings), missing: missing)
        }
    }

    /// A field's text ("" when missing); records the error when it is not UTF-8 or holds a NUL
    /// byte (text files have none: a NUL is a binary or damaged file, and would otherwise become
    /// part of a category or class label that no other program shows). An escaped `\0` is allowed.
    mutating func text(_ span: CSVReader.Span, _ reader: CSVReader, _ bytes: UnsafeBufferPointer<UInt8>) -> String {
        if reader.isMissing(span, bytes) { return "" }
        if span.end > span.start, memchr(bytes.baseAddress! + span.start, 0, span.end - span.start) != nil {
            if self.error == nil {
                self.error = CreateMLError(reader.error(bytes, at: span.start, column: name, "the value holds a NUL byte (a CSV file is text; is this a binary or damaged file?)"))
            }
            return ""
        }
        do { return try reader.text(span, in: bytes) } catch {
            if self.error == nil {
                self.error = CreateMLError(reader.error(bytes, at: span.start, column: name, "the value is not valid UTF-8 text"))
            }
            return ""
        }
    }

    func fail(_ span: CSVReader.Span, _ what: String, _ reader: CSVReader, _ bytes: UnsafeBufferPointer<UInt8>) -> CreateMLError {
        let shown = (try? reader.text(span, in: bytes)).map { $0.count > 40 ? String($0.prefix(40)) + "…" : $0 } ?? "(not UTF-8)"
        return CreateMLError(reader.error(bytes, at: span.start, column: name, "value \(shown.debugDescription) is not \(what)"))
    }

    /// Calls `body` with this column's field in each of the first `rows` data rows, reading the
    /// file again from its start (those rows were read once already, so this cannot fail).
    func rescan(rows: Int, reader: CSVReader, bytes: UnsafeBufferPointer<UInt8>, blockRows: Int,
                _ body: (CSVReader.Span) throws -> Void) throws {
        guard rows > 0 else { return }
        var cursor = try CreateMLError.reading { try reader.rows(bytes) }
        guard let offset = cursor.selected.firstIndex(where: { cursor.names[$0] == name }) else { return }
        let stride = cursor.selected.count
        var spans: [CSVReader.Span] = []
        while cursor.rowCount < rows {
            spans.removeAll(keepingCapacity: true)
            let count = try CreateMLError.reading { try cursor.next(Swift.min(blockRows, rows - cursor.rowCount), into: &spans) }
            if count == 0 { break }
            for q in 0..<count { try body(spans[q * stride + offset]) }
        }
    }
}
