import Foundation
import Testing
import _OpenCoreMLTestSupport

/// `opencoreml inspect` shows a flexible input's size ranges, and `opencoreml predict` takes an
/// array file of any shape the input accepts (GPT-2's token ids, [1, 1...128]; see
/// Scripts/make_transformer_fixtures.py) and refuses others naming the accepted shapes.
struct FlexibleShapeCommandTests {
    static let gpt2 = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/transformers/GPT2.mlpackage")

    @Test func inspectShowsTheRanges() throws {
        let text = try CommandRunner.run(["inspect", Self.gpt2.path])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("MultiArray Int32 [1, 8] (sizes [1, 1...128])"), "\(text.stdout)")
        let result = try CommandRunner.run(["inspect", "--json", Self.gpt2.path])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let input = try #require((json["inputs"] as? [[String: Any]])?.first)
        #expect(input["shapeRanges"] as? [[Int]] == [[1, 1], [1, 128]])
        #expect(input["enumeratedShapes"] == nil)
    }

    @Test func predictTakesAnyAcceptedLength() throws {
        try withTemporaryDirectory { folder in
            for (length, ids) in [(5, "[[3, 14, 15, 92, 65]]"), (1, "[[7]]")] {
                let file = folder.appendingPathComponent("ids\(length).json")
                try Data(ids.utf8).write(to: file)
                let result = try CommandRunner.run(["predict", Self.gpt2.path, "--input", "input_ids=\(file.path)", "--json"])
                #expect(result.status == 0, "\(result.stderr)")
                let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
                let output = try #require(json["last_hidden_state"] as? [String: Any])
                #expect(output["shape"] as? [Int] == [1, length, 32])
            }
            let long = folder.appendingPathComponent("long.json")
            try Data("[[\(Array(repeating: "1", count: 129).joined(separator: ","))]]".utf8).write(to: long)
            let refused = try CommandRunner.run(["predict", Self.gpt2.path, "--input", "input_ids=\(long.path)"])
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("holds 129 values (shape [1, 129]); input 'input_ids' accepts shapes [1, 1...128]"), "\(refused.stderr)")
        }
    }
}
