import Foundation
import Testing
import _OpenCoreMLTestSupport

/// `opencoreml inspect` lists a multifunction package's functions (the default marked) and a
/// stateful model's states; `opencoreml predict --function NAME` runs that function, and a stateful
/// model predicts from new states.
struct MultifunctionAndStateCommandTests {
    static let programs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/mlprogram")

    @Test func inspectListsFunctionsAndStates() throws {
        let package = Self.programs.appendingPathComponent("TorchMultifunction.mlpackage").path
        let text = try CommandRunner.run(["inspect", package])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("Function 'base' (default): inputs"))
        #expect(text.stdout.contains("Function 'adapter': outputs"))
        let json = try CommandRunner.run(["inspect", package, "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let functions = try #require(report["functions"] as? [[String: Any]])
        #expect(functions.map { $0["name"] as? String } == ["base", "adapter"])
        #expect(functions.map { $0["isDefault"] as? Bool } == [true, false])
        #expect((functions[1]["outputs"] as? [[String: Any]])?.map { $0["name"] as? String } == ["y", "scale"])

        let stateful = try CommandRunner.run(["inspect", Self.programs.appendingPathComponent("TorchKVCache.mlpackage").path, "--json"])
        let states = try #require((try JSONSerialization.jsonObject(with: Data(stateful.stdout.utf8)) as? [String: Any])?["states"] as? [[String: Any]])
        #expect(states.map { $0["name"] as? String } == ["k_cache", "v_cache"])
        #expect(states.first?["shape"] as? [Int] == [1, 8, 32])
    }

    @Test func predictRunsTheNamedFunction() throws {
        try withTemporaryDirectory { folder in
            let facts = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: Self.programs.appendingPathComponent("multifunction_facts.json"))) as? [String: Any])
            let x = try #require((facts["input"] as? [String: Any])?["values"] as? [Double])
            let input = folder.appendingPathComponent("x.json")
            try Data("[\(x.map { String($0) }.joined(separator: ", "))]".utf8).write(to: input)
            let package = Self.programs.appendingPathComponent("TorchMultifunction.mlpackage").path
            let adapter = try CommandRunner.run(["predict", package, "--function", "adapter", "--input", "x=\(input.path)", "--json"])
            #expect(adapter.status == 0, "\(adapter.stderr)")
            let outputs = try #require(try JSONSerialization.jsonObject(with: Data(adapter.stdout.utf8)) as? [String: Any])
            let scale = try #require((outputs["scale"] as? [String: Any])?["values"] as? [Double])
            let expected = try #require(((facts["functions"] as? [String: Any])?["adapter"] as? [String: Any])?["scale"] as? [String: Any])
            #expect(abs(scale[0] - (expected["values"] as? [Double] ?? [])[0]) <= 1e-4)
            let base = try CommandRunner.run(["predict", package, "--input", "x=\(input.path)", "--json"])
            #expect(base.status == 0 && !base.stdout.contains("scale"), "\(base.stderr)")
            let unknown = try CommandRunner.run(["predict", package, "--function", "decoder", "--input", "x=\(input.path)"])
            #expect(unknown.status != 0 && unknown.stderr.contains("decoder"))
        }
    }

    @Test func aStatefulModelPredictsFromNewStates() throws {
        try withTemporaryDirectory { folder in
            let ids = folder.appendingPathComponent("ids.json"), mask = folder.appendingPathComponent("mask.json")
            try Data("[[3]]".utf8).write(to: ids)
            try Data("[[[-10000, -10000, -10000, -10000, -10000, -10000, -10000, 0]]]".utf8).write(to: mask)
            let result = try CommandRunner.run(["predict", Self.programs.appendingPathComponent("TorchKVCache.mlpackage").path,
                                                "--input", "ids=\(ids.path)", "--input", "mask=\(mask.path)", "--json"])
            #expect(result.status == 0, "\(result.stderr)")
            // The first step of make_stateful_mlprograms.py's sequence (token 3, one filled position).
            let facts = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: Self.programs.appendingPathComponent("stateful_facts.json"))) as? [String: Any])
            let step = try #require(((facts["TorchKVCache.mlpackage"] as? [String: Any])?["steps"] as? [[String: Any]])?.first)
            let reference = try #require(step["logits"] as? [Double])
            let outputs = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            let logits = try #require((outputs["logits"] as? [String: Any])?["values"] as? [Double])
            #expect(logits.count == reference.count)
            #expect(zip(logits, reference).allSatisfy { abs($0 - $1) <= 2e-3 * max(reference.map(abs).max() ?? 0, 1) })
        }
    }
}
