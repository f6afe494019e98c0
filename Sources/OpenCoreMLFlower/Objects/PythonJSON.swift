import Foundation

/// JSON exactly as Python's `json.dumps` writes it with its defaults (`", "` and `": "` separators,
/// non-ASCII escaped as `\uXXXX`), because Flower hashes the bytes: a record or array body written
/// any other way would get another object id. And a small reader that keeps the order of keys
/// (the order of an ArrayRecord's arrays is the order of its JSON body).
enum PythonJSON {
    /// A value of the subset Flower's object bodies use.
    indirect enum Value: Equatable {
        case string(String)
        case integer(Int)
        case array([Value])
        case object([(String, Value)])

        static func == (a: Value, b: Value) -> Bool {
            switch (a, b) {
            case (.string(let x), .string(let y)): return x == y
            case (.integer(let x), .integer(let y)): return x == y
            case (.array(let x), .array(let y)): return x == y
            case (.object(let x), .object(let y)): return x.map(\.0) == y.map(\.0) && x.map(\.1) == y.map(\.1)
            default: return false
            }
        }
    }

    /// `json.dumps(value)`.
    static func dumps(_ value: Value) -> String {
        switch value {
        case .string(let text): return quoted(text)
        case .integer(let number): return String(number)
        case .array(let items): return "[" + items.map(dumps).joined(separator: ", ") + "]"
        case .object(let pairs): return "{" + pairs.map { quoted($0.0) + ": " + dumps($0.1) }.joined(separator: ", ") + "}"
        }
    }

    /// A JSON string literal with Python's `ensure_ascii` escaping.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for unit in text.utf16 {
            switch unit {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0x08: out += "\\b"
            case 0x0C: out += "\\f"
            case 0x20..<0x7F: out.unicodeScalars.append(Unicode.Scalar(UInt8(unit)))
            default: out += String(format: "\\u%04x", unit)
            }
        }
        return out + "\""
    }

    /// Parses `data` (strings, integers, arrays and objects only), keeping the order of keys.
    static func parse(_ data: Data) throws -> Value {
        var reader = Reader(bytes: [UInt8](data))
        let value = try reader.value()
        reader.skipSpaces()
        guard reader.position == reader.bytes.count else { throw reader.failure("unexpected text after the value") }
        return value
    }

    private struct Reader {
        let bytes: [UInt8]
        var position = 0

        func failure(_ reason: String) -> FlowerClientError {
            .protocolViolation("JSON body: \(reason) at byte \(position)")
        }

        mutating func skipSpaces() {
            while position < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[position]) { position += 1 }
        }

        mutating func expect(_ byte: UInt8) throws {
            skipSpaces()
            guard position < bytes.count, bytes[position] == byte else { throw failure("expected '\(Character(Unicode.Scalar(byte)))'") }
            position += 1
        }

        mutating func value() throws -> Value {
            skipSpaces()
            guard position < bytes.count else { throw failure("unexpected end") }
            switch bytes[position] {
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "["):
                position += 1
                var items: [Value] = []
                skipSpaces()
                if position < bytes.count, bytes[position] == UInt8(ascii: "]") { position += 1; return .array(items) }
                while true {
                    items.append(try value())
                    skipSpaces()
                    if position < bytes.count, bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                    try expect(UInt8(ascii: "]"))
                    return .array(items)
                }
            case UInt8(ascii: "{"):
                position += 1
                var pairs: [(String, Value)] = []
                skipSpaces()
                if position < bytes.count, bytes[position] == UInt8(ascii: "}") { position += 1; return .object(pairs) }
                while true {
                    skipSpaces()
                    let key = try string()
                    try expect(UInt8(ascii: ":"))
                    pairs.append((key, try value()))
                    skipSpaces()
                    if position < bytes.count, bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                    try expect(UInt8(ascii: "}"))
                    return .object(pairs)
                }
            default:
                let start = position
                if bytes[position] == UInt8(ascii: "-") { position += 1 }
                while position < bytes.count, (48...57).contains(bytes[position]) { position += 1 }
                guard let number = Int(String(decoding: bytes[start..<position], as: UTF8.self)) else { throw failure("expected a value") }
                return .integer(number)
            }
        }

        mutating func string() throws -> String {
            try expect(UInt8(ascii: "\""))
            var units: [UInt16] = []
            var raw: [UInt8] = []
            func flush() { units.append(contentsOf: String(decoding: raw, as: UTF8.self).utf16); raw.removeAll() }
            while position < bytes.count {
                let byte = bytes[position]
                position += 1
                switch byte {
                case UInt8(ascii: "\""):
                    flush()
                    return String(decoding: units, as: UTF16.self)
                case UInt8(ascii: "\\"):
                    flush()
                    guard position < bytes.count else { throw failure("unfinished escape") }
                    let escape = bytes[position]
                    position += 1
                    switch escape {
                    case UInt8(ascii: "n"): units.append(0x0A)
                    case UInt8(ascii: "r"): units.append(0x0D)
                    case UInt8(ascii: "t"): units.append(0x09)
                    case UInt8(ascii: "b"): units.append(0x08)
                    case UInt8(ascii: "f"): units.append(0x0C)
                    case UInt8(ascii: "u"):
                        guard position + 4 <= bytes.count, let unit = UInt16(String(decoding: bytes[position..<position + 4], as: UTF8.self), radix: 16) else {
                            throw failure("bad \\u escape")
                        }
                        units.append(unit)
                        position += 4
                    default: units.append(UInt16(escape))
                    }
                default:
                    raw.append(byte)
                }
            }
            throw failure("unterminated string")
        }
    }
}
