import Foundation
import Testing
@testable import _OpenCoreMLEngine

/// `rnn`, `gru` and `lstm` on hand-built programs: values worked out by hand for one unit, the
/// bidirectional layer's last-step output against its sequence output, and parameters a hostile
/// file could hold (shapes that do not fit, unknown directions and activations) as errors naming
/// the operation. The converted fixtures check them against PyTorch (MLProgramFlowTests).
@Suite("ML Program operations: recurrent layers")
struct ProgramPlanRecurrentTests {
    typealias Program = ProgramPlanTests.Program

    /// A program applying `type` to input `x` (`[s, b, I]`) and `h0` (and `c0` for lstm) with float
    /// constants (name → shape and values) and string constants.
    static func program(_ type: String, x: [Int], hidden: [Int], floats: [String: ([Int], [Float])],
                        strings: [String: String] = [:], ints: [String: Int32] = [:], outputs: [String]) -> Program {
        var p = Program()
        p.input("x", x)
        p.input("h0", hidden)
        var inputs = ["x": ["x"], "initial_h": ["h0"]]
        if type == "lstm" {
            p.input("c0", hidden)
            inputs["initial_c"] = ["c0"]
        }
        for (name, (shape, values)) in floats {
            p.constant("c_\(name)", floats: values, shape: shape)
            inputs[name] = ["c_\(name)"]
        }
        for (name, value) in strings {
            p.constant("c_\(name)", string: value, shape: [])
            inputs[name] = ["c_\(name)"]
        }
        for (name, value) in ints {
            p.constant("c_\(name)", ints: [value], shape: [])
            inputs[name] = ["c_\(name)"]
        }
        p.operation(type, inputs, outputs: outputs)
        return p
    }

    static func run(_ p: Program, outputs: [String], x: MILTensor, h0: MILTensor, c0: MILTensor? = nil) throws -> [String: MILTensor] {
        var inputs = ["x": x, "h0": h0]
        inputs["c0"] = c0
        return try p.plan(outputs: outputs).run(inputs)
    }

    @Test func aLinearRNNForwardAndReverse() throws {
        // One unit: h ← 2x + 0.5h + 0.1, from h0 = 1 over x = 1, 2, 3.
        let floats: [String: ([Int], [Float])] = ["weight_ih": ([1, 1], [2]), "weight_hh": ([1, 1], [0.5]), "bias": ([1], [0.1])]
        let x = MILTensor(shape: [3, 1, 1], values: [1, 2, 3]), h0 = MILTensor(shape: [1, 1], values: [1])
        let forward = try Self.run(Self.program("rnn", x: [3, 1, 1], hidden: [1, 1], floats: floats, strings: ["activation": "linear"],
                                                ints: ["output_sequence": 1], outputs: ["y", "h"]), outputs: ["y", "h"], x: x, h0: h0)
        // 2 + 0.5 + 0.1 = 2.6; 4 + 1.3 + 0.1 = 5.4; 6 + 2.7 + 0.1 = 8.8
        #expect(forward["y"]!.shape == [3, 1, 1])
        #expect(zip(forward["y"]!.values, [2.6, 5.4, 8.8] as [Float]).allSatisfy { abs($0 - $1) < 1e-5 })
        #expect(abs(forward["h"]!.values[0] - 8.8) < 1e-5)
        // Reverse reads 3, 2, 1 and lists its outputs in that order: 6.6, 7.4, 5.8; only the last kept.
        let reverse = try Self.run(Self.program("rnn", x: [3, 1, 1], hidden: [1, 1], floats: floats,
                                                strings: ["activation": "linear", "direction": "reverse"], outputs: ["y", "h"]),
                                   outputs: ["y", "h"], x: x, h0: h0)
        #expect(reverse["y"]!.shape == [1, 1, 1])
        #expect(abs(reverse["y"]!.values[0] - 5.8) < 1e-5)
    }

    @Test func aGRUUnitByHand() throws {
        // One unit, gates [r, o, z]; all weights 1, no bias, h0 = 0.5, x = 1:
        // r = σ(1 + 0.5), z = σ(1 + 0.5), o = tanh(1 + r·0.5), h = (1 − z)·o + z·0.5.
        let floats: [String: ([Int], [Float])] = ["weight_ih": ([3, 1], [1, 1, 1]), "weight_hh": ([3, 1], [1, 1, 1])]
        let result = try Self.run(Self.program("gru", x: [1, 1, 1], hidden: [1, 1], floats: floats, outputs: ["y", "h"]),
                                  outputs: ["y", "h"], x: MILTensor(shape: [1, 1, 1], values: [1]), h0: MILTensor(shape: [1, 1], values: [0.5]))
        let gate = 1 / (1 + exp(-1.5 as Float)), o = tanh(1 + gate * 0.5)
        #expect(abs(result["h"]!.values[0] - ((1 - gate) * o + gate * 0.5)) < 1e-5)
    }

    @Test func aBidirectionalLSTMsLastOutputIsEachDirectionsFinalState() throws {
        let (s, b, i, h) = (4, 2, 3, 2)
        func values(_ count: Int, _ seed: Int) -> [Float] {
            (0..<count).map { (index: Int) -> Float in Float(sin(Double(index * 7 + seed))) * 0.5 }
        }
        var floats: [String: ([Int], [Float])] = [:]
        for (suffix, seed) in [("", 1), ("_back", 2)] {
            floats["weight_ih" + suffix] = ([4 * h, i], values(4 * h * i, seed))
            floats["weight_hh" + suffix] = ([4 * h, h], values(4 * h * h, seed + 10))
            floats["bias" + suffix] = ([4 * h], values(4 * h, seed + 20))
        }
        let x = MILTensor(shape: [s, b, i], values: values(s * b * i, 5))
        let h0 = MILTensor(shape: [b, 2 * h], values: values(b * 2 * h, 6)), c0 = MILTensor(shape: [b, 2 * h], values: values(b * 2 * h, 7))
        func run(sequence: Bool) throws -> [String: MILTensor] {
            try Self.run(Self.program("lstm", x: [s, b, i], hidden: [b, 2 * h], floats: floats, strings: ["direction": "bidirectional"],
                                      ints: ["output_sequence": sequence ? 1 : 0], outputs: ["y", "h", "c"]),
                         outputs: ["y", "h", "c"], x: x, h0: h0, c0: c0)
        }
        let all = try run(sequence: true), last = try run(sequence: false)
        #expect(all["y"]!.shape == [s, b, 2 * h])
        #expect(last["y"]!.shape == [1, b, 2 * h])
        for batch in 0..<b {
            let forward = Array(all["y"]!.values[((s - 1) * b + batch) * 2 * h..<((s - 1) * b + batch) * 2 * h + h])
            let backward = Array(all["y"]!.values[(batch * 2 * h + h)..<(batch * 2 * h + 2 * h)])  // time 0
            #expect(Array(last["y"]!.values[(batch * 2 * h)..<(batch * 2 * h + 2 * h)]) == forward + backward)
            #expect(Array(last["h"]!.values[(batch * 2 * h)..<(batch * 2 * h + 2 * h)]) == forward + backward)
        }
        #expect(all["c"] == last["c"])
    }

    static let lstmWeights: [String: ([Int], [Float])] = [
        "weight_ih": ([8, 3], [Float](repeating: 0.1, count: 24)), "weight_hh": ([8, 2], [Float](repeating: 0.1, count: 16)),
    ]

    @Test(arguments: [
        ("lstm", ["weight_ih": ([6, 3], [Float](repeating: 0, count: 18))], [:], "are not [4H, I] and [4H, H]"),
        ("lstm", ["bias": ([3], [1, 2, 3])], [:], "bias holds 3 values; it needs 8"),
        ("lstm", ["peephole": ([2], [1, 2])], [:], "peephole holds 2 values; it needs 6"),
        ("lstm", ["clip": ([], [-1])], [:], "clip -1.0 is not a bound"),
        ("lstm", [:], ["direction": "sideways"], "direction 'sideways' is not one of forward, reverse, bidirectional"),
        ("lstm", [:], ["direction": "bidirectional"], "needs constant weight_ih_back and weight_hh_back"),
        ("lstm", [:], ["recurrent_activation": "swish"], "recurrent_activation 'swish' is not one of"),
        ("gru", [:], ["direction": "bidirectional"], "direction 'bidirectional' is not one of forward, reverse"),
        ("gru", [:], [:], "are not [3H, I] and [3H, H]"),
    ] as [(String, [String: ([Int], [Float])], [String: String], String)])
    func hostileParameters(type: String, floats: [String: ([Int], [Float])], strings: [String: String], expected: String) {
        let outputs = type == "lstm" ? ["y", "h", "c"] : ["y", "h"]
        let program = Self.program(type, x: [2, 1, 3], hidden: [1, 2], floats: Self.lstmWeights.merging(floats) { $1 }, strings: strings, outputs: outputs)
        let message: String?
        do {
            _ = try program.plan(outputs: outputs)
            message = nil
        } catch {
            message = (error as? EngineError)?.description
        }
        #expect(message?.contains(expected) == true, "\(type): \(message ?? "no error")")
        #expect(message?.contains("(\(type) → y)") == true)
    }

    @Test func inputsOfTheWrongShapeAreErrorsWhenTheLayerRuns() throws {
        let p = Self.program("lstm", x: [2, 1, 3], hidden: [1, 2], floats: Self.lstmWeights, outputs: ["y", "h", "c"])
        let plan = try p.plan(outputs: ["y"])
        let h = MILTensor(shape: [1, 2], values: [0, 0])
        #expect(throws: EngineError.self) { try plan.run(["x": MILTensor(shape: [2, 3], values: .init(repeating: 0, count: 6)), "h0": h, "c0": h]) }
        #expect(throws: EngineError.self) { try plan.run(["x": MILTensor(shape: [2, 1, 4], values: .init(repeating: 0, count: 8)), "h0": h, "c0": h]) }
        #expect(throws: EngineError.self) {
            try plan.run(["x": MILTensor(shape: [2, 1, 3], values: .init(repeating: 0, count: 6)), "h0": MILTensor(shape: [3], values: [0, 0, 0]), "c0": h])
        }
        let fine = try plan.run(["x": MILTensor(shape: [2, 1, 3], values: .init(repeating: 1, count: 6)), "h0": h, "c0": h])
        #expect(fine["y"]?.shape == [1, 1, 2])
        #expect(Self.program("lstm", x: [2, 1, 3], hidden: [1, 2], floats: Self.lstmWeights, outputs: ["y", "h"]).planError?.contains("2 outputs; lstm has 3") == true)
    }
}

extension ProgramPlanTests.Program {
    /// The error compiling the program with output `y` gives, if any.
    var planError: String? {
        do {
            _ = try plan(outputs: ["y"])
            return nil
        } catch {
            return (error as? EngineError)?.description
        }
    }
}
