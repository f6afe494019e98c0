import Foundation
import Testing
@testable import _OpenCoreMLFormats

struct JSONReaderTests {
    private func read(_ text: String) throws -> JSONValue {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { buffer in
            var reader = JSONReader(location: "j.json", bytes: buffer)
            return try reader.readDocument()
        }
    }

    @Test func objectsKeepTheirKeysInFileOrder() throws {
        let value = try read(#"{"z": 1, "a": [true, null, -2.5e1], "m": {"y": "\u00e9\ud83d\ude42", "b": false}}"#)
        #expect(value == .object([
            ("z", .int(1)),
            ("a", .array([.bool(true), .null, .double(-25)])),
            ("m", .object([("y", .string("é🙂")), ("b", .bool(false))])),
        ]))
        // Order matters to equality.
        #expect(try read(#"{"a": 1, "b": 2}"#) != read(#"{"b": 2, "a": 1}"#))
    }

    @Test func integersThatDoNotFitBecomeDoubles() throws {
        #expect(try read("9223372036854775807") == .int(Int.max))
        #expect(try read("9223372036854775808") == .double(9223372036854775808))
    }

    @Test func errorsNameTheLine() {
        func message(_ text: String) -> String {
            do { _ = try read(text); return "no error" } catch { return "\(error)" }
        }
        #expect(message("{\n\"a\": 1,\n\"b\": tru\n}") == "j.json: line 3: invalid JSON value: \"tru\\n}\"")
        #expect(message("[1, 2") == "j.json: line 1: an array is never closed")
        #expect(message("\"\\ud800\"").contains("unpaired UTF-16 surrogate"))
        #expect(message("{} x").contains("unexpected text after the JSON value"))
        #expect(message(String(repeating: "[", count: 600)).contains("deeper than 512 levels"))
    }
}
