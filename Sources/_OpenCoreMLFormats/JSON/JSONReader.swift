import Foundation

/// A JSON reader over bytes that keeps the order of object keys and names the line of every error
/// (`JSONSerialization` does neither). Strict RFC 8259: no comments, no trailing commas, no
/// unpaired surrogates, valid UTF-8; nesting deeper than ``maximumDepth`` throws rather than
/// exhausting the stack. Callers that read a particular layout (an array of row objects, one
/// object body) drive it with ``skipSpace()``, ``peek()``, ``parseValue(depth:)`` and
/// ``parseObjectEntries(depth:)``.
package struct JSONReader {
    /// The file or data, for error messages.
    package let location: String
    package let bytes: UnsafeBufferPointer<UInt8>
    package var position = 0
    /// Nesting deeper than this throws instead of exhausting the stack.
    package static let maximumDepth = 512
    /// Whether the words `NaN`, `Infinity` and `-Infinity` are numbers (as Python's `json` module
    /// writes them; not RFC 8259).
    package let allowsNonFiniteNumbers: Bool

    package init(location: String, bytes: UnsafeBufferPointer<UInt8>, allowsNonFiniteNumbers: Bool = false) {
        self.location = location
        self.bytes = bytes
        self.allowsNonFiniteNumbers = allowsNonFiniteNumbers
    }

    /// The 1-based line holding byte `offset`.
    package func line(at offset: Int) -> Int {
        var lines = 1
        for i in 0..<Swift.min(offset, bytes.count) where bytes[i] == 0x0A { lines += 1 }
        return lines
    }

    /// An error at byte `offset`, naming its line and, when given, the column (a table's key).
    package func error(at offset: Int, column: String? = nil, _ message: String) -> FormatError {
        FormatError("\(location): line \(line(at: offset))" + (column.map { ", column \"\($0)\"" } ?? ""), message)
    }

    /// Skips a UTF-8 byte order mark at the start.
    package mutating func skipByteOrderMark() {
        if position == 0, bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }
    }

    /// The whole input as one value (a byte order mark and surrounding white space allowed).
    package mutating func readDocument() throws(FormatError) -> JSONValue {
        skipByteOrderMark()
        let value = try parseValue(depth: 1)
        skipSpace()
        guard position == bytes.count else { throw error(at: position, "unexpected text after the JSON value: \(describeToken())") }
        return value
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

    package func describeToken() -> String {
        guard position < bytes.count else { return "the end of the file" }
        let end = Swift.min(position + 12, bytes.count)
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[position..<end]), as: UTF8.self)
        return text.debugDescription
    }

    mutating func expect(_ literal: String) throws(FormatError) {
        let start = position
        for b in literal.utf8 {
            guard position < bytes.count, bytes[position] == b else {
                position = start
                throw error(at: start, "invalid JSON value: \(describeToken())")
            }
            position += 1
        }
    }

    /// The value at `position`; `depth` counts the arrays and objects around it.
    package mutating func parseValue(depth: Int) throws(FormatError) -> JSONValue {
        guard depth <= Self.maximumDepth else { throw error(at: position, "the JSON nests deeper than \(Self.maximumDepth) levels") }
        skipSpace()
        guard let b = peek() else { throw error(at: position, "unexpected end of the file: expected a value") }
        switch b {
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "{"):
            return .object(try parseObjectEntries(depth: depth + 1))
        case UInt8(ascii: "["):
            position += 1
            var elements: [JSONValue] = []
            skipSpace()
            if peek() == UInt8(ascii: "]") { position += 1; return .array(elements) }
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
            return .array(elements)
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "N") where allowsNonFiniteNumbers: try expect("NaN"); return .double(.nan)
        case UInt8(ascii: "I") where allowsNonFiniteNumbers: try expect("Infinity"); return .double(.infinity)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error(at: position, "invalid JSON value: \(describeToken())")
        }
    }

    /// The entries of the object at `position`, in file order.
    package mutating func parseObjectEntries(depth: Int) throws(FormatError) -> [(String, JSONValue)] {
        guard depth <= Self.maximumDepth else { throw error(at: position, "the JSON nests deeper than \(Self.maximumDepth) levels") }
        position += 1  // "{"
        var entries: [(String, JSONValue)] = []
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

    mutating func parseString() throws(FormatError) -> String {
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
                guard let character = Unicode.Scalar(scalar) else { throw error(at: position, "an invalid \\u escape") }
                out.append(contentsOf: Array(String(character).utf8))
            default:
                throw error(at: position - 2, "an invalid escape \\\(Character(Unicode.Scalar(e))) in a string")
            }
        }
        guard let s = out.withUnsafeBufferPointer({ UTF8Text.decode($0) }) else {
            throw error(at: open, "a string is not valid UTF-8 text")
        }
        return s
    }

    mutating func parseHex4() throws(FormatError) -> UInt32 {
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

    mutating func parseNumber() throws(FormatError) -> JSONValue {
        let start = position
        var isInteger = true
        if peek() == UInt8(ascii: "-") { position += 1 }
        if allowsNonFiniteNumbers, peek() == UInt8(ascii: "I") {
            try expect("Infinity")
            return .double(-.infinity)
        }
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
