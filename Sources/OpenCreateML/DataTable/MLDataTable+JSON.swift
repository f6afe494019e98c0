import Foundation

/// Reads a JSON file that is an array of objects, one object per row, into a table.
///
/// The parser is our own rather than `JSONSerialization`, so that columns keep the order in which
/// their keys first appear and errors can name the line. Values become: integers (number literals
/// without a fraction or exponent that fit an `Int`), doubles (other numbers), strings, `true` and
/// `false` as 1 and 0 (Booleans are integers in a table), `null` as a missing value, arrays as
/// sequences and objects as dictionaries. A key that a row lacks is a missing value in that row.
/// `package`: the Flower client reads its objects' JSON bodies with it too (keys in file order).
package struct JSONTableReader {
    let location: String
    let bytes: UnsafeBufferPointer<UInt8>
    package var position = 0
    /// Nesting deeper than this throws instead of exhausting the stack.
    static let maximumDepth = 512
    /// The most table cells (rows × columns, missing ones included) per byte of the file, beyond
    /// the first million: rows that each bring new keys would otherwise make a table, and work,
    /// that grows with the square of the file's size.
    static let cellsPerByte = 8

    package init(location: String, bytes: UnsafeBufferPointer<UInt8>) {
        self.location = location
        self.bytes = bytes
    }

    func line(at offset: Int) -> Int {
        var lines = 1
        for i in 0..<Swift.min(offset, bytes.count) where bytes[i] == 0x0A { lines += 1 }
        return lines
    }

    func error(at offset: Int, column: String? = nil, _ message: String) -> CreateMLError {
        CreateMLError("\(location): line \(line(at: offset))" + (column.map { ", column \"\($0)\"" } ?? ""), message)
    }

    mutating func read() throws -> MLDataTable {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }
        skipSpace()
        guard position < bytes.count else { throw CreateMLError(location, "the file is empty: expected a JSON array of objects") }
        guard bytes[position] == UInt8(ascii: "[") else {
            throw error(at: position, "expected a JSON array of objects, one per row, found \(describeToken())")
        }
        position += 1
        var names: [String] = []
        var indexOfName: [String: Int] = [:]
        var values: [[MLDataValue]] = []
        var rowOffsets: [Int] = []
        skipSpace()
        if peek() == UInt8(ascii: "]") { position += 1 } else {
            while true {
                skipSpace()
                let rowStart = position
                guard peek() == UInt8(ascii: "{") else {
                    throw error(at: position, "row \(rowOffsets.count + 1) is not a JSON object: found \(describeToken())")
                }
                let row = rowOffsets.count
                rowOffsets.append(rowStart)
                for (key, value) in try parseObjectEntries(depth: 1) {
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
                skipSpace()
                guard position < bytes.count else { throw error(at: position, "the array of rows is never closed") }
                if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                if bytes[position] == UInt8(ascii: "]") { position += 1; break }
                throw error(at: position, "expected \",\" or \"]\" after row \(row + 1), found \(describeToken())")
            }
        }
        skipSpace()
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

    // MARK: Tokens

    package func peek() -> UInt8? { position < bytes.count ? bytes[position] : nil }

    package mutating func skipSpace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    func describeToken() -> String {
        guard position < bytes.count else { return "the end of the file" }
        let end = Swift.min(position + 12, bytes.count)
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[position..<end]), as: UTF8.self)
        return text.debugDescription
    }

    mutating func expect(_ literal: String) throws {
        let start = position
        for b in literal.utf8 {
            guard position < bytes.count, bytes[position] == b else {
                position = start
                throw error(at: start, "invalid JSON value: \(describeToken())")
            }
            position += 1
        }
    }

    mutating func parseValue(depth: Int) throws -> MLDataValue {
        guard depth <= Self.maximumDepth else { throw error(at: position, "the JSON nests deeper than \(Self.maximumDepth) levels") }
        skipSpace()
        guard let b = peek() else { throw error(at: position, "unexpected end of the file: expected a value") }
        switch b {
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "{"):
            let entries = try parseObjectEntries(depth: depth + 1)
            return .dictionary(MLDataValue.DictionaryType(uniqueKeysWithValues: entries.map { (MLDataValue.string($0.0), $0.1) }))
        case UInt8(ascii: "["):
            position += 1
            var elements: [MLDataValue] = []
            skipSpace()
            if peek() == UInt8(ascii: "]") { position += 1; return .sequence(MLDataValue.SequenceType(elements)) }
            while true {
                elements.append(try parseValue(depth: depth + 1))
                skipSpace()
                guard let next = peek() else { throw error(at: position, "an array is never closed") }
                position += 1
                if next == UInt8(ascii: ",") { continue }
                if next == UInt8(ascii: "]") { break }
                position -= 1
                throw error(at: position, "expected \",\" or \"]\" in an array, found \(describeToken())")
            }
            return .sequence(MLDataValue.SequenceType(elements))
        case UInt8(ascii: "t"): try expect("true"); return .int(1)
        case UInt8(ascii: "f"): try expect("false"); return .int(0)
        case UInt8(ascii: "n"): try expect("null"); return .invalid
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error(at: position, "invalid JSON value: \(describeToken())")
        }
    }

    /// The entries of the object at `position`, in file order.
    package mutating func parseObjectEntries(depth: Int) throws -> [(String, MLDataValue)] {
        guard depth <= Self.maximumDepth else { throw error(at: position, "the JSON nests deeper than \(Self.maximumDepth) levels") }
        position += 1  // "{"
        var entries: [(String, MLDataValue)] = []
        skipSpace()
        if peek() == UInt8(ascii: "}") { position += 1; return entries }
        while true {
            skipSpace()
            guard peek() == UInt8(ascii: "\"") else { throw error(at: position, "expected a quoted key in an object, found \(describeToken())") }
            let key = try parseString()
            skipSpace()
            guard peek() == UInt8(ascii: ":") else { throw error(at: position, "expected \":\" after the key \"\(key)\", found \(describeToken())") }
            position += 1
            entries.append((key, try parseValue(depth: depth)))
            skipSpace()
            guard let next = peek() else { throw error(at: position, "an object is never closed") }
            position += 1
            if next == UInt8(ascii: ",") { continue }
            if next == UInt8(ascii: "}") { return entries }
            position -= 1
            throw error(at: position, "expected \",\" or \"}\" in an object, found \(describeToken())")
        }
    }

    mutating func parseString() throws -> String {
        let open = position
        position += 1
        var out: [UInt8] = []
        while true {
            guard position < bytes.count else { throw error(at: open, "a string is never closed") }
            let b = bytes[position]
            if b == UInt8(ascii: "\"") { position += 1; break }
            if b < 0x20 { throw error(at: position, "a control character inside a string (write it as an escape)") }
            if b != UInt8(ascii: "\\") {
                out.append(b)
                position += 1
                continue
            }
            guard position + 1 < bytes.count else { throw error(at: open, "a string is never closed") }
            let e = bytes[position + 1]
            position += 2
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try parseHex4()
                if (0xD800..<0xDC00).contains(scalar) {
                    // A high surrogate must be followed by an escaped low surrogate.
                    guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                        throw error(at: position, "an unpaired UTF-16 surrogate in a \\u escape")
                    }
                    position += 2
                    let low = try parseHex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw error(at: position, "an unpaired UTF-16 surrogate in a \\u escape") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00..<0xE000).contains(scalar) {
                    throw error(at: position, "an unpaired UTF-16 surrogate in a \\u escape")
                }
                out.append(contentsOf: Array(String(Unicode.Scalar(scalar)!).utf8))
            default:
                throw error(at: position - 2, "an invalid escape \\\(Character(Unicode.Scalar(e))) in a string")
            }
        }
        guard let s = out.withUnsafeBufferPointer({ CSVReader.decode($0) }) else {
            throw error(at: open, "a string is not valid UTF-8 text")
        }
        return s
    }

    mutating func parseHex4() throws -> UInt32 {
        guard position + 4 <= bytes.count else { throw error(at: position, "a \\u escape needs four hexadecimal digits") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[position]
            let d: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(b - 48)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(b - 87)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(b - 55)
            default: throw error(at: position, "a \\u escape needs four hexadecimal digits")
            }
            v = v * 16 + d
            position += 1
        }
        return v
    }

    mutating func parseNumber() throws -> MLDataValue {
        let start = position
        var isInteger = true
        if peek() == UInt8(ascii: "-") { position += 1 }
        func digits() -> Int {
            var n = 0
            while let b = peek(), b >= 48, b <= 57 { position += 1; n += 1 }
            return n
        }
        guard digits() > 0 else { throw error(at: start, "invalid number: \(describeToken())") }
        if peek() == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard digits() > 0 else { throw error(at: start, "invalid number: a digit must follow the decimal point") }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { position += 1 }
            guard digits() > 0 else { throw error(at: start, "invalid number: a digit must follow the exponent") }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        if isInteger, let v = Int(text) { return .int(v) }
        guard let v = Double(text) else { throw error(at: start, "invalid number: \(text)") }
        return .double(v)
    }
}
