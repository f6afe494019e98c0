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
            let reader = try CreateMLError.reading { try CSVReader(location: url.path, options: options.csvOptions) }
            self = try data.withUnsafeBytes { raw in try reader.table(raw.bindMemory(to: UInt8.self), columnTypes: options.columnTypes) }
        }
    }
}

/// A table from CSV bytes in two passes: the reader finds every field's bytes (one scan of the
/// file), then each column's fields become one typed array.
extension CSVReader {
    func table(_ bytes: UnsafeBufferPointer<UInt8>, columnTypes: [String: MLDataValue.ValueType]) throws -> MLDataTable {
        for (name, type) in columnTypes where ![.int, .double, .string].contains(type) {
            throw CreateMLError(location, "columnTypes: column \"\(name)\" cannot be forced to \(type); only Int, Double and String are")
        }
        let fields = try CreateMLError.reading { try self.fields(bytes) }
        var table = MLDataTable()
        table.rowCount = fields.rowCount
        for (k, c) in fields.selected.enumerated() {
            let name = fields.names[c]
            let column = try makeColumn(named: name, forced: columnTypes[name], spans: fields.spans, stride: fields.selected.count,
                                        offset: k, rows: fields.rowCount, bytes: bytes)
            table.names.append(name)
            table.columns.append(column)
        }
        if table.names.isEmpty { table.rowCount = 0 }
        return table
    }

    func makeColumn(named name: String, forced: MLDataValue.ValueType?, spans: [Span], stride: Int, offset: Int, rows: Int,
                    bytes: UnsafeBufferPointer<UInt8>) throws -> ColumnStorage {
        var missing = [Bool](repeating: false, count: rows)
        var anyPresent = false
        for r in 0..<rows where isMissing(spans[r * stride + offset], bytes) { missing[r] = true }
        anyPresent = missing.contains(false)

        func fail(_ span: Span, _ what: String) -> CreateMLError {
            let shown = (try? text(span, in: bytes)).map { $0.count > 40 ? String($0.prefix(40)) + "…" : $0 } ?? "(not UTF-8)"
            return CreateMLError(error(bytes, at: span.start, column: name, "value \(shown.debugDescription) is not \(what)"))
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
                throw CreateMLError(self.error(bytes, at: span.start, column: name, "the value is not valid UTF-8 text"))
            }
        }
        return ColumnStorage(.string(strings), missing: missing)
    }
}
