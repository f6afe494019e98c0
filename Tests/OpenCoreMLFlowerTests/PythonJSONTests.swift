import Foundation
import Testing
@testable import OpenCoreMLFlower

/// Object bodies are hashed, so JSON must come out byte for byte as Python's `json.dumps` writes it.
@Suite("Python's json.dumps")
struct PythonJSONTests {
    @Test func writesPythonsSeparatorsAndEscapes() {
        let value = PythonJSON.Value.object([
            ("dtype", .string("float32")), ("shape", .array([.integer(3), .integer(4)])), ("empty", .array([])),
            ("naïve \"quote\"\n", .string("tab\tback\\slash 🙂")), ("n", .integer(-7)),
        ])
        // What Python 3.11 prints for json.dumps of the same dict.
        let python = #"{"dtype": "float32", "shape": [3, 4], "empty": [], "na\u00efve \"quote\"\n": "tab\tback\\slash \ud83d\ude42", "n": -7}"#
        #expect(PythonJSON.dumps(value) == python)
    }

    @Test func readsBackWhatItWritesKeepingKeyOrder() throws {
        let value = PythonJSON.Value.object([("z", .string("1")), ("a", .array([.integer(0), .integer(2)])), ("é🙂", .array([])), ("", .string("q\"\\\n"))])
        #expect(try PythonJSON.parse(Data(PythonJSON.dumps(value).utf8)) == value)
    }

    @Test func refusesWhatIsNotJSON() {
        for text in ["{", "{\"a\" 1}", "[1,]x", "\"open", "{\"a\": tru}", "{\"a\": 1.5}", "{\"a\": {}}"] {
            #expect(throws: FlowerClientError.self) { try PythonJSON.parse(Data(text.utf8)) }
        }
    }
}
