import Foundation
import _OpenCoreMLFormats

/// JSON exactly as Python's `json.dumps` writes it with its defaults (`", "` and `": "` separators,
/// non-ASCII escaped as `\uXXXX`), because Flower hashes the bytes: a record or array body written
/// any other way would get another object id. Reading keeps the order of keys (the order of an
/// ArrayRecord's arrays is the order of its JSON body).
enum PythonJSON {
    /// A value of the subset Flower's object bodies use.
    indirect enum Value: Equatable, Sendable {
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

    /// Parses an object body: a JSON object whose values are strings, integers or arrays of them,
    /// keeping the order of keys (with the order-keeping JSON reader of `_OpenCoreMLFormats`).
    static func parse(_ data: Data) throws -> Value {
        do {
            return try data.withUnsafeBytes { raw in
                var reader = JSONReader(location: "an object body", bytes: raw.bindMemory(to: UInt8.self))
                reader.skipSpace()
                guard reader.peek() == UInt8(ascii: "{") else { throw FlowerClientError.protocolViolation("a JSON body is not an object") }
                let entries = try reader.parseObjectEntries(depth: 1)
                reader.skipSpace()
                guard reader.position == raw.count else { throw FlowerClientError.protocolViolation("a JSON body has text after the object") }
                return .object(try entries.map { ($0.0, try value($0.1)) })
            }
        } catch let error as FlowerClientError {
            throw error
        } catch {
            throw FlowerClientError.protocolViolation("\(error)")
        }
    }

    private static func value(_ value: JSONValue) throws -> Value {
        switch value {
        case .string(let text): return .string(text)
        case .int(let number): return .integer(number)
        case .array(let items): return .array(try items.map(Self.value))
        // Flower's bodies hold no Booleans; `true` and `false` read as 1 and 0, as they always have here.
        case .bool(let flag): return .integer(flag ? 1 : 0)
        default: throw FlowerClientError.protocolViolation("a JSON body holds \(value), not a string, an integer or an array")
        }
    }
}
