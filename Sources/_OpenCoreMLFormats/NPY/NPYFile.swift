import Foundation

/// NumPy `.npy` arrays (format versions 1.0, 2.0 and 3.0): a `\x93NUMPY` magic, a version, a header
/// length, a Python dict literal such as `{'descr': '<f4', 'fortran_order': False, 'shape': (1, 28, 28), }`
/// and the elements in C order. Little-endian f2, f4, f8, i4, i8 and single-byte u1, i1 elements.
/// Errors are ``FormatError``s naming the data (`path`) and what is wrong.
package enum NPYFile {
    /// An element type this reader accepts.
    package enum ElementType: String, CaseIterable, Sendable {
        case float16 = "<f2", float32 = "<f4", float64 = "<f8", int32 = "<i4", int64 = "<i8", uint8 = "|u1", int8 = "|i1"

        /// NumPy's name for the type (`str(dtype)`: `float32`, `int64`, …), as Flower's Array `dtype` says it.
        package var numpyName: String {
            switch self {
            case .float16: return "float16"
            case .float32: return "float32"
            case .float64: return "float64"
            case .int32: return "int32"
            case .int64: return "int64"
            case .uint8: return "uint8"
            case .int8: return "int8"
            }
        }

        /// Whether the elements are floating-point numbers.
        package var isFloatingPoint: Bool { [.float16, .float32, .float64].contains(self) }

        package var size: Int {
            switch self {
            case .float16: return 2
            case .float32, .int32: return 4
            case .float64, .int64: return 8
            case .uint8, .int8: return 1
            }
        }

        /// `descr` as NumPy writes it; single bytes may also be spelled with `<`, `=` or no prefix.
        package init?(descr: String) {
            if let type = ElementType(rawValue: descr) { self = type; return }
            for type in [ElementType.uint8, .int8] where ["<", "=", ""].contains(where: { $0 + type.rawValue.dropFirst() == descr }) {
                self = type
                return
            }
            if let type = ElementType(rawValue: "<" + descr.dropFirst()), descr.first == "=" && type.size > 1 {
                self = type  // native order; this reader runs on little-endian machines only
                return
            }
            return nil
        }
    }

    private static let magic: [UInt8] = [0x93, 0x4E, 0x55, 0x4D, 0x50, 0x59]  // \x93NUMPY

    /// What a `.npy` header says, read without touching the elements.
    package struct Header: Equatable, Sendable {
        /// The element type.
        package var type: ElementType
        /// `descr` as the header spells it (`<f4`, `=f4`, `|u1`, …).
        package var descr: String
        /// The shape (`()` for a scalar).
        package var shape: [Int]
        /// Where the elements start: the magic, version, length and header before them.
        package var dataOffset: Int

        /// The bytes the elements take, or nil when that is more than an `Int` holds.
        package var dataCount: Int? {
            guard let count = sizeProduct(shape) else { return nil }
            let (bytes, overflow) = count.multipliedReportingOverflow(by: type.size)
            return overflow ? nil : bytes
        }
    }

    /// The header of the `.npy` bytes in `data` (the contents of `path`): only the header is read,
    /// so a shape claiming more elements than memory holds costs nothing.
    package static func header(_ data: Data, path: String) throws(FormatError) -> Header {
        let lead = [UInt8](data.prefix(12))
        guard lead.count >= 10 else {
            throw FormatError(path, lead.starts(with: magic) ? "truncated .npy header" : "not a .npy file (no \\x93NUMPY magic)")
        }
        guard lead.starts(with: magic) else { throw FormatError(path, "not a .npy file (no \\x93NUMPY magic)") }
        let major = lead[6], minor = lead[7]
        let headerStart: Int
        let headerLength: Int
        switch major {
        case 1:
            headerStart = 10
            headerLength = Int(lead[8]) | Int(lead[9]) << 8
        case 2, 3:
            guard lead.count >= 12 else { throw FormatError(path, "truncated .npy header") }
            headerStart = 12
            headerLength = (8..<12).reversed().reduce(0) { $0 << 8 | Int(lead[$1]) }
        default:
            throw FormatError(path, ".npy format version \(major).\(minor) is not supported (1.0, 2.0 and 3.0 are)")
        }
        guard data.count >= headerStart + headerLength else { throw FormatError(path, "truncated .npy header") }
        let first = data.index(data.startIndex, offsetBy: headerStart)
        let headerText = String(decoding: data[first..<data.index(first, offsetBy: headerLength)], as: UTF8.self)

        var parser = HeaderParser(text: headerText)
        let header: [String: HeaderParser.Value]
        do {
            header = try parser.dictionary()
        } catch {
            throw FormatError(path, ".npy header is not a dict literal: \(error.reason) in \(headerText.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        guard case .string(let descr)? = header["descr"] else {
            if case .other(let text)? = header["descr"] {
                throw FormatError(path, "structured .npy arrays (descr \(text)) are not supported")
            }
            throw FormatError(path, ".npy header has no 'descr' string")
        }
        guard case .tuple(let shape)? = header["shape"] else { throw FormatError(path, ".npy header has no 'shape' tuple") }
        if case .bool(true)? = header["fortran_order"] {
            throw FormatError(path, "Fortran-order .npy arrays are not supported; save a C-order array (np.ascontiguousarray)")
        }
        guard let type = ElementType(descr: descr) else {
            let supported = ElementType.allCases.map(\.rawValue).joined(separator: ", ")
            if descr.first == ">" {
                throw FormatError(path, "big-endian .npy data ('\(descr)') is not supported; save as \(supported)")
            }
            throw FormatError(path, ".npy element type '\(descr)' is not supported; use \(supported)")
        }
        guard shape.allSatisfy({ $0 >= 0 }) else { throw FormatError(path, ".npy shape \(shape) has a negative size") }
        return Header(type: type, descr: descr, shape: shape, dataOffset: headerStart + headerLength)
    }

    /// The elements of the array in `data` (the contents of `path`), as Doubles, and its shape.
    package static func read(_ data: Data, path: String) throws(FormatError) -> (values: [Double], shape: [Int]) {
        let header = try header(data, path: path)
        let (type, descr, shape, dataStart) = (header.type, header.descr, header.shape, header.dataOffset)
        guard let count = sizeProduct(shape), count <= data.count else {
            throw FormatError(path, "truncated .npy data: shape \(shape) needs more bytes than the file has")
        }
        let bytes = [UInt8](data)
        let available = bytes.count - dataStart
        let needed = count * type.size
        if available < needed {
            throw FormatError(path, "truncated .npy data: \(grouped(available)) bytes, expected \(grouped(needed)) for shape \(shape) of \(descr)")
        }
        if available > needed {
            throw FormatError(path, "\(grouped(available - needed)) unexpected bytes after the .npy data (shape \(shape) of \(descr))")
        }
        let values = bytes.withUnsafeBytes { raw -> [Double] in
            let body = UnsafeRawBufferPointer(rebasing: raw[dataStart...])
            return (0..<count).map { index in
                let offset = index * type.size
                switch type {
                case .float16: return Double(float(half: UInt16(littleEndian: body.loadUnaligned(fromByteOffset: offset, as: UInt16.self))))
                case .float32: return Double(Float(bitPattern: UInt32(littleEndian: body.loadUnaligned(fromByteOffset: offset, as: UInt32.self))))
                case .float64: return Double(bitPattern: UInt64(littleEndian: body.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
                case .int32: return Double(Int32(littleEndian: body.loadUnaligned(fromByteOffset: offset, as: Int32.self)))
                case .int64: return Double(Int64(littleEndian: body.loadUnaligned(fromByteOffset: offset, as: Int64.self)))
                case .uint8: return Double(body[offset])
                case .int8: return Double(Int8(bitPattern: body[offset]))
                }
            }
        }
        return (values, shape)
    }

    /// `.npy` bytes (format 1.0, C order) for `count` elements of `type` at `elements` (little-endian
    /// already) in `shape`, laid out as NumPy writes them: the header padded with spaces and a newline
    /// so that the data starts at a multiple of 64 bytes.
    package static func data(type: ElementType, shape: [Int], elements: UnsafeRawBufferPointer) -> Data {
        let shapeText = shape.count == 1 ? "(\(shape[0]),)" : "(" + shape.map(String.init).joined(separator: ", ") + ")"
        var header = "{'descr': '\(type.rawValue)', 'fortran_order': False, 'shape': \(shapeText), }"
        let unpadded = magic.count + 4 + header.utf8.count + 1
        header += String(repeating: " ", count: (64 - unpadded % 64) % 64) + "\n"
        var data = Data(magic)
        data.append(contentsOf: [1, 0, UInt8(header.utf8.count & 0xFF), UInt8(header.utf8.count >> 8)])
        data.append(contentsOf: Array(header.utf8))
        data.append(contentsOf: elements)
        return data
    }

    /// The value of an IEEE 754 half-precision bit pattern: its bits moved into a float's layout (the
    /// exponent then reads 112 too small) and scaled by 2^112, which covers subnormals exactly;
    /// infinities and NaN keep their all-ones exponent.
    static func float(half bits: UInt16) -> Float {
        let sign = UInt32(bits & 0x8000) << 16
        let magnitude = UInt32(bits & 0x7FFF)
        if magnitude >= 0x7C00 { return Float(bitPattern: sign | 0x7F80_0000 | (magnitude & 0x3FF) << 13) }
        return Float(bitPattern: sign | magnitude << 13) * 0x1p112
    }

    /// Reads the Python dict literal of a `.npy` header: string keys; string, boolean, integer and
    /// integer-tuple values. Anything else (a structured dtype's list) is kept as text.
    struct HeaderParser {
        enum Value: Equatable {
            case string(String)
            case bool(Bool)
            case int(Int)
            case tuple([Int])
            case other(String)
        }

        struct Failure: Error { var reason: String }

        private let characters: [Character]
        private var position = 0

        init(text: String) { characters = Array(text) }

        mutating func dictionary() throws(Failure) -> [String: Value] {
            try expect("{")
            var result: [String: Value] = [:]
            while true {
                skipSpaces()
                if peek == "}" { position += 1; return result }
                let key = try string()
                try expect(":")
                result[key] = try value()
                skipSpaces()
                if peek == "," { position += 1; continue }
                try expect("}")
                return result
            }
        }

        private var peek: Character? { position < characters.count ? characters[position] : nil }

        private mutating func skipSpaces() {
            while let character = peek, character.isWhitespace { position += 1 }
        }

        private mutating func expect(_ character: Character) throws(Failure) {
            skipSpaces()
            guard peek == character else { throw Failure(reason: "expected '\(character)' at character \(position + 1)") }
            position += 1
        }

        private mutating func string() throws(Failure) -> String {
            skipSpaces()
            guard let quote = peek, quote == "'" || quote == "\"" else {
                throw Failure(reason: "expected a quoted string at character \(position + 1)")
            }
            position += 1
            var text = ""
            while let character = peek, character != quote {
                text.append(character)
                position += 1
            }
            try expect(quote)
            return text
        }

        private mutating func integer() throws(Failure) -> Int {
            skipSpaces()
            var text = ""
            while let character = peek, character.isNumber || (text.isEmpty && character == "-") {
                text.append(character)
                position += 1
            }
            if peek == "L" { position += 1 }  // Python 2 long
            guard let value = Int(text) else { throw Failure(reason: "expected an integer at character \(position + 1)") }
            return value
        }

        private mutating func value() throws(Failure) -> Value {
            skipSpaces()
            switch peek {
            case "'", "\"":
                return .string(try string())
            case "(":
                position += 1
                var items: [Int] = []
                while true {
                    skipSpaces()
                    if peek == ")" { position += 1; return .tuple(items) }
                    items.append(try integer())
                    skipSpaces()
                    if peek == "," { position += 1; continue }
                    try expect(")")
                    return .tuple(items)
                }
            case "[", "{":
                // A structured dtype: skip to the matching bracket and keep the text.
                let start = position
                var depth = 0
                repeat {
                    guard let character = peek else { throw Failure(reason: "unbalanced brackets") }
                    if "[{(".contains(character) { depth += 1 }
                    if "]})".contains(character) { depth -= 1 }
                    position += 1
                } while depth > 0
                return .other(String(characters[start..<position]))
            default:
                if characters[position...].starts(with: "True") { position += 4; return .bool(true) }
                if characters[position...].starts(with: "False") { position += 5; return .bool(false) }
                return .int(try integer())
            }
        }
    }
}
