import Foundation
import Testing
import _OpenCoreMLTestSupport
@testable import OpenCreateML

/// A `.npy` file built byte by byte as NumPy writes it: magic, version, little-endian header length,
/// the dict literal padded with spaces to a multiple of 64 bytes and ended by a newline, the data.
private func npy(descr: String, shape: String, payload: [UInt8], major: UInt8 = 1, fortranOrder: Bool = false) -> Data {
    let prefixLength = major == 1 ? 10 : 12
    var header = "{'descr': '\(descr)', 'fortran_order': \(fortranOrder ? "True" : "False"), 'shape': \(shape), }"
    while (prefixLength + header.utf8.count + 1) % 64 != 0 { header += " " }
    header += "\n"
    let length = header.utf8.count
    var bytes: [UInt8] = [0x93] + Array("NUMPY".utf8) + [major, 0]
    bytes += major == 1
        ? [UInt8(length & 0xFF), UInt8(length >> 8)]
        : [UInt8(length & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 24)]
    return Data(bytes + Array(header.utf8) + payload)
}

/// Little-endian bytes of each value.
private func littleEndian<T: FixedWidthInteger>(_ values: [T]) -> [UInt8] {
    values.flatMap { value in (0..<(T.bitWidth / 8)).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
}

struct InputFileTests {
    /// Writes `data` as `name` in a temporary folder and loads it.
    private func load(_ data: Data, as name: String) throws -> (values: [Double], shape: [Int]) {
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent(name)
            try data.write(to: url)
            return try ArrayFile.read(path: url.path)
        }
    }

    private func message(_ data: Data, as name: String) -> String {
        errorMessage { _ = try load(data, as: name) }
    }

    @Test func npyElementTypes() throws {
        let f4: [Float] = [1.5, -2, 0.25, 3, 4, 1e-3]
        var result = try load(npy(descr: "<f4", shape: "(2, 3)", payload: littleEndian(f4.map(\.bitPattern))), as: "a.npy")
        #expect(result.shape == [2, 3])
        #expect(result.values == f4.map(Double.init))

        let f8: [Double] = [0.1, -1e300, 7]
        result = try load(npy(descr: "<f8", shape: "(3,)", payload: littleEndian(f8.map(\.bitPattern)), major: 2), as: "b.npy")
        #expect(result.shape == [3])
        #expect(result.values == f8)

        result = try load(npy(descr: "<i4", shape: "(2, 2)", payload: littleEndian([Int32(-5), 0, 2_000_000_000, Int32.min])), as: "c.npy")
        #expect(result.shape == [2, 2])
        #expect(result.values == [-5, 0, 2_000_000_000, -2_147_483_648])

        result = try load(npy(descr: "<i8", shape: "(2,)", payload: littleEndian([Int64(1) << 40, -3])), as: "d.npy")
        #expect(result.values == [1_099_511_627_776, -3])

        result = try load(npy(descr: "|u1", shape: "(1, 2, 2)", payload: [0, 255, 7, 128]), as: "e.npy")
        #expect(result.shape == [1, 2, 2])
        #expect(result.values == [0, 255, 7, 128])

        result = try load(npy(descr: "|i1", shape: "(3,)", payload: [0x80, 0x7F, 0xFF]), as: "f.npy")
        #expect(result.values == [-128, 127, -1])

        result = try load(npy(descr: "<f8", shape: "()", payload: littleEndian([(2.5).bitPattern])), as: "scalar.npy")
        #expect(result.shape == [])
        #expect(result.values == [2.5])

        result = try load(npy(descr: "<f4", shape: "(0, 3)", payload: []), as: "empty.npy")
        #expect(result.shape == [0, 3] && result.values.isEmpty)
    }

    @Test func npyProblemsAreNamed() {
        let floats = littleEndian([Float(1), 2, 3, 4].map(\.bitPattern))
        expectMessage(message(npy(descr: "<f4", shape: "(2, 2)", payload: floats, fortranOrder: true), as: "f.npy"), contains: ["f.npy", "Fortran-order"])
        expectMessage(message(npy(descr: "<f4", shape: "(2, 3)", payload: floats), as: "short.npy"), contains: ["short.npy", "truncated", "16 bytes, expected 24"])
        expectMessage(message(npy(descr: "<f4", shape: "(3,)", payload: floats), as: "long.npy"), contains: ["long.npy", "4 unexpected bytes"])
        expectMessage(message(npy(descr: ">f4", shape: "(4,)", payload: floats), as: "big.npy"), contains: ["big.npy", "big-endian"])
        expectMessage(message(npy(descr: "<c8", shape: "(2,)", payload: floats), as: "complex.npy"), contains: ["complex.npy", "'<c8' is not supported", "<f4"])
        expectMessage(message(Data("just text, not numpy".utf8), as: "text.npy"), contains: ["text.npy", "not a .npy file"])
        expectMessage(message(npy(descr: "<f4", shape: "(4,)", payload: floats).prefix(30), as: "cut.npy"), contains: ["cut.npy", "truncated .npy header"])
        var future = npy(descr: "<f4", shape: "(4,)", payload: floats)
        future[6] = 9
        expectMessage(message(future, as: "v9.npy"), contains: ["v9.npy", "version 9.0"])
        var mangled = npy(descr: "<f4", shape: "(4,)", payload: floats)
        mangled[10] = UInt8(ascii: "[")
        expectMessage(message(mangled, as: "mangled.npy"), contains: ["mangled.npy", "header"])
    }

    @Test func jsonNumbersAndNestedArrays() throws {
        var result = try load(Data("[[1, 2, 3], [4, 5, 6.5]]".utf8), as: "x.json")
        #expect(result.shape == [2, 3])
        #expect(result.values == [1, 2, 3, 4, 5, 6.5])

        result = try load(Data("[[[1], [2]], [[3], [-4e2]]]".utf8), as: "x.json")
        #expect(result.shape == [2, 2, 1])
        #expect(result.values == [1, 2, 3, -400])

        result = try load(Data(" 3.25 ".utf8), as: "x.json")
        #expect(result.shape == [] && result.values == [3.25])

        result = try load(Data("[]".utf8), as: "x.json")
        #expect(result.shape == [0] && result.values.isEmpty)
    }

    /// NaN and infinities as Python's `json` writes them (bare `NaN`, `Infinity`, `-Infinity`), and
    /// `null` (pandas' missing value) as NaN.
    @Test func jsonValuesThatAreNotFinite() throws {
        let result = try load(Data("[[1, NaN], [Infinity, -Infinity], [null, 2]]".utf8), as: "special.json")
        #expect(result.shape == [3, 2])
        #expect(result.values[0] == 1 && result.values[1].isNaN && result.values[4].isNaN && result.values[5] == 2)
        #expect(result.values[2] == .infinity && result.values[3] == -.infinity)
    }

    @Test func jsonProblemsAreNamed() throws {
        expectMessage(message(Data("[[1, 2], [3]]".utf8), as: "ragged.json"), contains: ["ragged.json", "not rectangular", "element [1] has 1 items, expected 2"])
        expectMessage(message(Data("[[1, 2], 3]".utf8), as: "mixed.json"), contains: ["mixed.json", "not rectangular", "element [1]"])
        expectMessage(message(Data("[1, [2]]".utf8), as: "deeper.json"), contains: ["not rectangular", "element [1] is an array"])
        expectMessage(message(Data("[1, \"two\"]".utf8), as: "string.json"), contains: ["string.json", "element [1] is a string"])
        expectMessage(message(Data("[[true]]".utf8), as: "bool.json"), contains: ["element [0][0] is a boolean"])
        expectMessage(message(Data("{\"a\": 1}".utf8), as: "object.json"), contains: ["object.json", "an object"])
        expectMessage(message(Data("[1, 2".utf8), as: "broken.json"), contains: ["broken.json", "line 1", "never closed"])
        // The non-finite words, cut short or misspelt, at the very end of the file.
        for text in ["Na", "NaN]", "-Inf", "Infinit", "[1, NaN", "nan", "-NaN", "+Infinity"] {
            expectMessage(message(Data(text.utf8), as: "cut.json"), contains: ["cut.json", "line 1"])
        }
        #expect(try load(Data("NaN".utf8), as: "nan.json").values.first?.isNaN == true)
        #expect(try load(Data("-Infinity".utf8), as: "minus.json").values == [-.infinity])
    }

    @Test func csvRow() throws {
        let result = try load(Data("0.5, 1,-2e1,3\r\n\n".utf8), as: "row.csv")
        #expect(result.shape == [4])
        #expect(result.values == [0.5, 1, -20, 3])
        expectMessage(message(Data("1,2\n3,4\n".utf8), as: "rows.csv"), contains: ["rows.csv", "line 2", "one row"])
        expectMessage(message(Data("1,two\n".utf8), as: "word.csv"), contains: ["word.csv", "line 1, column 2", "'two' is not a number"])
        // Values that are not finite are data (an imputer fills NaN; a tree sends it down its missing branch).
        let special = try load(Data("1,NaN,inf,-Infinity,1e999\n".utf8), as: "special.csv")
        #expect(special.values.count == 5 && special.values[1].isNaN)
        #expect(Array(special.values[2...]) == [.infinity, -.infinity, .infinity])
        expectMessage(message(Data("\n".utf8), as: "blank.csv"), contains: ["blank.csv", "no numbers"])
    }

    @Test func hostileSizesInHeadersAreErrorsNotTraps() {
        let floats = littleEndian([Float(1), 2].map(\.bitPattern))
        for shape in ["(1099511627776, 1099511627776)", "(4611686018427387904,)", "(3037000500, 3037000500, 2)"] {
            expectMessage(message(npy(descr: "<f4", shape: shape, payload: floats), as: "huge.npy"),
                          contains: ["huge.npy", "truncated .npy data", "needs more bytes than the file has"])
        }
        // A zero makes the product 0 whatever follows: an empty array, whose bytes must then be none.
        expectMessage(message(npy(descr: "<f4", shape: "(0, 4611686018427387904, 4611686018427387904)", payload: floats), as: "zero.npy"),
                      contains: ["zero.npy", "8 unexpected bytes"])
        // JSON whose first items promise 2^64 numbers: 64 levels of two items, the second a number.
        let deep = String(repeating: "[", count: 64) + "1, 2" + String(repeating: "], 3", count: 63) + "]"
        expectMessage(message(Data(deep.utf8), as: "deep.json"), contains: ["deep.json", "not rectangular"])
    }

    @Test func datasetsWhoseExampleSizeOverflowsThrow() {
        expectMessage(errorMessage { _ = try LabeledDataset(values: [1, 2], labels: [0], sampleShape: [Int.max, 2]) },
                      contains: ["2 values are not 1 examples of shape"])
        expectMessage(errorMessage { _ = try LabeledDataset(values: [], labels: [0, 1, 2], sampleShape: [1 << 62]) },
                      contains: ["0 values are not 3 examples of shape"])
    }

    @Test func unsupportedOrMissingFiles() {
        expectMessage(message(Data("1".utf8), as: "x.txt"), contains: ["x.txt", ".npy, .json or .csv"])
        expectMessage(errorMessage { _ = try ArrayFile.read(path: "/no/such/input.npy") }, contains: ["/no/such/input.npy", "no such file"])
    }

}
