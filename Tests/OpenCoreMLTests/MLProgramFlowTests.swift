import Foundation
import OpenCoreML
import Testing

/// ML Programs with control flow and recurrent layers (make_flow_mlprograms.py): PyTorch's LSTM
/// (one layer; two bidirectional layers in float32 and float16), GRU (which coremltools writes as a
/// while_loop), ReLU RNN and a scripted module with a data-dependent while loop and ifs, converted by
/// coremltools 9.0; and a MIL-builder program with cond inside a while_loop, MIL's own gru, lstm
/// and rnn in their other forms and the loop helpers. Run through `MLModel` against PyTorch's or
/// numpy's outputs (flow_facts.json) with the tolerances of ``MLProgramTorchTests``.
@Suite("ML Programs with control flow and recurrent layers")
struct MLProgramFlowTests {
    static let cases = [
        "TorchLSTM.mlpackage", "TorchBiLSTM.mlpackage", "TorchBiLSTM16.mlpackage", "TorchGRU.mlpackage", "TorchRNN.mlpackage",
        "TorchLoop.mlpackage", "TorchLoop.mlpackage (case 2)", "TorchLoop.mlpackage (case 3)", "Flow.mlpackage",
    ]

    @Test(arguments: cases)
    func predictsWhatPyTorchOrNumpyComputes(name: String) throws {
        let facts = try #require(try MLProgramTorchTests.facts("flow_facts.json")[name] as? [String: Any], "no facts for \(name)")
        let package = try #require(facts["package"] as? String)
        try MLProgramTorchTests.check(package, facts, float16: facts["precision"] as? String == "float16")
    }

    /// A loop of two billion iterations stops at the iteration limit (100,000 per prediction) with
    /// an error naming the loop, in about a second, instead of running for hours.
    @Test func aHugeLoopEndsAtTheIterationLimit() throws {
        let facts = try #require(try MLProgramTorchTests.facts("flow_facts.json")["HugeLoop.mlpackage"] as? [String: Any])
        let expected = try #require(facts["error"] as? String)
        let model = try MLModel(contentsOf: MLProgramTorchTests.folder.appendingPathComponent("HugeLoop.mlpackage"))
        let x = try MLMultiArray(shape: [1, 16], dataType: .float32)
        let start = Date()
        #expect {
            _ = try model.prediction(from: MLDictionaryFeatureProvider(dictionary: ["x": x]))
        } throws: { error in
            "\(error)".contains(expected) && "\(error)".contains("while_loop")
        }
        #expect(Date().timeIntervalSince(start) < 30)
    }

    /// The fixtures still hold what they were made for.
    @Test func theFixturesHoldTheOperationsTheyTest() throws {
        let facts = try MLProgramTorchTests.facts("flow_facts.json")
        func types(_ name: String) -> Set<String> {
            Set((((facts[name] as? [String: Any])?["operationCounts"]) as? [String: Int] ?? [:]).keys)
        }
        #expect(types("TorchLSTM.mlpackage").contains("lstm"))
        #expect(types("TorchBiLSTM.mlpackage").isSuperset(of: ["lstm", "stack", "split"]))
        #expect(types("TorchBiLSTM16.mlpackage").contains("lstm"))
        #expect(types("TorchGRU.mlpackage").isSuperset(of: ["while_loop", "scatter", "gather", "less"]))
        #expect(types("TorchRNN.mlpackage").isSuperset(of: ["rnn", "stack"]))
        #expect(types("TorchLoop.mlpackage").isSuperset(of: ["while_loop", "cond", "identity"]))
        #expect(types("Flow.mlpackage").isSuperset(of: ["while_loop", "cond", "gru", "lstm", "rnn", "shape", "fill", "fill_like", "range_1d",
                                                          "topk", "argsort", "scatter", "logical_and", "logical_or", "logical_xor",
                                                          "logical_not", "identity"]))
    }
}
