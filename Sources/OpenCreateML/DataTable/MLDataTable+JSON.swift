import Foundation
import _OpenCoreMLFormats

/// Reads a JSON file that is an array of objects, one object per row, into a table.
///
/// The parser (`_OpenCoreMLFormats`' `JSONReader`) is our own rather than `JSONSerialization`, so
/// that columns keep the order in which their keys first appear and errors can name the line. Values become: integers (number literals
/// without a fraction or exponent that fit an `Int`), doubles (other numbers), strings, `true` and
/// `false` as 1 and 0 (Booleans are integers in a table), `null` as a missing value, arrays as
/// sequences and objects as dictionaries. A key that a row lacks is a missing value in that row.
struct JSONTableReader {
    var json: JSONReader
    var location: String { json.location }
    var bytes: UnsafeBufferPointer<UInt8> { json.bytes }
    var position: Int {
        get { json.position }
        set { json.position = newValue }
    }
    /// The most table cells (rows × columns, missing ones included) per byte of the file, beyond
    /// the first million: rows that each bring new keys would otherwise make a table, and work,
    /// that grows with the square of the file's size.
    static let cellsPerByte = 8

    init(location: String, bytes: UnsafeBufferPointer<UInt8>) {
        json = JSONReader(location: location, bytes: bytes)
    }

    func error(at offset: Int, column: String? = nil, _ message: String) -> CreateMLError {
        CreateMLError(json.error(at: offset, column: column, message))
    }

    func describeToken() -> String { json.describeToken() }

    mutating func read() throws -> MLDataTable {
        do { return try readRows() } catch let error as FormatError { throw CreateMLError(error) }
    }

    private mutating func readRows() throws -> MLDataTable {
        json.skipByteOrderMark()
        json.skipSpace()
        guard position < bytes.count else { throw CreateMLError(location, "the file is empty: expected a JSON array of objects") }
        guard bytes[position] == UInt8(ascii: "[") else {
            throw error(at: position, "expected a JSON array of objects, one per row, found \(describeToken())")
        }
        position += 1
        var names: [String] = []
        var indexOfName: [String: Int] = [:]
        var values: [[MLDataValue]] = []
        var rowOffsets: [Int] = []
        json.skipSpace()
        if json.peek() == UInt8(ascii: "]") { position += 1 } else {
            while true {
                json.skipSpace()
                let rowStart = position
                guard json.peek() == UInt8(ascii: "{") else {
                    throw error(at: position, "row \(rowOffsets.count + 1) is not a JSON object: found \(describeToken())")
                }
                let row = rowOffsets.count
                rowOffsets.append(rowStart)
                for (key, entry) in try json.parseObjectEntries(depth: 1) {
                    let value = MLDataValue(entry)
                    let c: Int
                    if let existing = indexOfName[key] { c = existing } else {
                        let cells = (names.count + 1).multipliedReportingOverflow(by: row + 1)
                        let limit = Self.cellsPerByte * bytes.count + 1_000_000
                        guard !cells.overflow, cells.partialValue <= limit else {
                            throw error(at: rowStart, column: key,
                                        "row \(row + 1) brings column \(names.count + 1): \(row + 1) rows × \(names.count + 1) columns is more than \(limit) cells (\(Self.cellsPerByte) per byte of the file, plus a million), most of them missing; rows must mostly share their keys")
                        }
                        c = names.count
                        indexOfName[key] = c
                        names.append(key)
                        values.append(Array(repeating: .invalid, count: row))
                    }
                    if values[c].count > row {
                        throw error(at: rowStart, column: key, "row \(row + 1) has the key twice")
                    }
                    values[c].append(value)
                }
                for c in values.indices where values[c].count == row { values[c].append(.invalid) }
                json.skipSpace()
                guard position < bytes.count else { throw error(at: position, "the array of rows is never closed") }
                if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                if bytes[position] == UInt8(ascii: "]") { position += 1; break }
                throw error(at: position, "expected \",\" or \"]\" after row \(row + 1), found \(describeToken())")
            }
        }
        json.skipSpace()
        guard position == bytes.count else { throw error(at: position, "unexpected text after the array of rows: \(describeToken())") }

        var table = MLDataTable()
        table.rowCount = rowOffsets.count
        for (c, name) in names.enumerated() {
            guard let storage = ColumnStorage.from(values: values[c]) else {
                // Find the first row whose kind differs from the kinds before it.
                var kind: MLDataValue.ValueType = .invalid
                let numeric: Set<MLDataValue.ValueType> = [.int, .double]
                for (r, v) in values[c].enumerated() where v.isValid {
                    if kind == .invalid { kind = v.type; continue }
                    if v.type != kind, !(numeric.contains(kind) && numeric.contains(v.type)) {
                        throw error(at: rowOffsets[r], column: name,
                                    "row \(r + 1) holds a \(v.type) value, but earlier rows hold \(kind) values")
                    }
                }
                throw error(at: rowOffsets.first ?? 0, column: name, "the values mix kinds")
            }
            table.names.append(name)
            table.columns.append(storage)
        }
        if table.names.isEmpty { table.rowCount = 0 }
        return table
    }
}

extension MLDataValue {
    /// A JSON value as a table holds it: `true` and `false` as 1 and 0 (Booleans are integers in a
    /// table), `null` as a missing value, arrays as sequences and objects as dictionaries.
    init(_ json: JSONValue) {
        switch json {
        case .null: self = .invalid
        case .bool(let flag): self = .int(flag ? 1 : 0)
        case .int(let number): self = .int(number)
        case .double(let number): self = .double(number)
        case .string(let text): self = .string(text)
        case .array(let items): self = .sequence(MLDataValue.SequenceType(items.map(MLDataValue.init)))
        case .object(let entries):
            self = .dictionary(MLDataValue.DictionaryType(uniqueKeysWithValues: entries.map { (MLDataValue.string($0.0), MLDataValue($0.1)) }))
        }
    }
}

extension CreateMLError {
    /// A file format's error as Create ML reports it: the same location and message.
    init(_ error: FormatError) { self.init(error.location, error.message) }

    /// `body`'s result; a file format's error becomes a `CreateMLError` with the same text.
    static func reading<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as FormatError { throw CreateMLError(error) }
    }
}
