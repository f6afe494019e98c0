import Foundation

/// Byte-level reading of comma-separated numbers, shared by `CSVDataset` and `.csv` input files:
/// lines end in `\n` or `\r\n`, blank lines are skipped, fields are trimmed of spaces and tabs.
enum CSVScanner {
    /// What one field holds.
    enum Field: Equatable {
        case number(Double)
        case notFinite  // nan, inf, or too large for a Double
        case notANumber
        case empty
    }

    /// Calls `body` with each non-blank line (without its line ending) and its 1-based line number.
    static func forEachLine(in bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer, Int) throws -> Void) rethrows {
        var start = 0
        var lineNumber = 0
        while start < bytes.count {
            lineNumber += 1
            var end = start
            while end < bytes.count && bytes[end] != 0x0A { end += 1 }
            var stop = end
            if stop > start && bytes[stop - 1] == 0x0D { stop -= 1 }
            let line = UnsafeRawBufferPointer(rebasing: bytes[start..<stop])
            if !line.allSatisfy(isBlank) { try body(line, lineNumber) }
            start = end + 1
        }
    }

    /// Calls `body` with each comma-separated field of `line`, trimmed, and its 1-based column.
    static func forEachField(in line: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer, Int) throws -> Void) rethrows {
        var start = 0
        var column = 0
        while true {
            column += 1
            var end = start
            while end < line.count && line[end] != 0x2C { end += 1 }
            var lower = start, upper = end
            while lower < upper && isBlank(line[lower]) { lower += 1 }
            while upper > lower && isBlank(line[upper - 1]) { upper -= 1 }
            try body(UnsafeRawBufferPointer(rebasing: line[lower..<upper]), column)
            if end >= line.count { return }
            start = end + 1
        }
    }

    /// The number in `field`: plain digits quickly, anything else through `strtod`, which must use
    /// every byte; hexadecimal and named values other than nan/inf are not numbers here.
    static func number(_ field: UnsafeRawBufferPointer) -> Field {
        if field.isEmpty { return .empty }
        if field.count <= 9 && field.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            return .number(Double(field.reduce(0) { $0 * 10 + Int($1 - 0x30) }))
        }
        let lowercased = String(decoding: field, as: UTF8.self).lowercased()
        if ["nan", "+nan", "-nan", "inf", "+inf", "-inf", "infinity", "+infinity", "-infinity"].contains(lowercased) {
            return .notFinite
        }
        // Digits, sign, point and exponent only: strtod would also take hex, "0x…", and locale forms.
        let allowed: (UInt8) -> Bool = { ($0 >= 0x30 && $0 <= 0x39) || [0x2B, 0x2D, 0x2E, 0x65, 0x45].contains($0) }
        guard field.allSatisfy(allowed), field.contains(where: { $0 >= 0x30 && $0 <= 0x39 }) else { return .notANumber }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: field.count + 1) { buffer in
            for (index, byte) in field.enumerated() { buffer[index] = CChar(bitPattern: byte) }
            buffer[field.count] = 0
            var end: UnsafeMutablePointer<CChar>?
            let value = strtod(buffer.baseAddress!, &end)
            guard let end, end - buffer.baseAddress! == field.count else { return .notANumber }
            return value.isFinite ? .number(value) : .notFinite
        }
    }

    /// A field's text for an error message, shortened when long.
    /// The field's number; anything else throws, naming the file, line and column.
    static func finiteNumber(_ field: UnsafeRawBufferPointer, path: String, line: Int, column: Int) throws -> Double {
        switch number(field) {
        case .number(let value): return value
        case .notFinite: throw CreateMLError(path, "line \(line), column \(column): \(quoted(field)) is not a finite number")
        case .notANumber: throw CreateMLError(path, "line \(line), column \(column): \(quoted(field)) is not a number")
        case .empty: throw CreateMLError(path, "line \(line), column \(column): empty field")
        }
    }

    static func quoted(_ field: UnsafeRawBufferPointer) -> String {
        let text = String(decoding: field, as: UTF8.self)
        return "'" + (text.count > 20 ? text.prefix(20) + "…" : text) + "'"
    }

    private static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
}
