import Foundation
import Testing
@testable import _OpenCoreMLEngine

/// `scaled_dot_product_attention` on hand-built programs against the operation's definition
/// computed here, in Double: `softmax(Q·Kᵀ/√E + mask)·V`, a bool mask making the scores where it is
/// false −∞, a float one added, both broadcast to the scores' shape [B…, L, S]; a query whose every
/// score is −∞ gives zeros (OpenCoreML's choice, PyTorch's result). The converted fixtures
/// (TorchAttention*.mlpackage) check it against PyTorch.
@Suite("ML Program operations: scaled dot-product attention")
struct ProgramPlanAttentionTests {
    typealias Program = ProgramPlanTests.Program

    /// Deterministic values in [−1, 1].
    static func values(_ count: Int, seed: Double) -> [Float] {
        (0..<count).map { Float(sin(Double($0) * 1.7 + seed)) }
    }

    /// The definition for `batch` elements of Q [L, E], K [S, E], V [S, EV]; `mask(b, l, s)` is the
    /// value added to score (l, s) of batch element b.
    static func reference(q: [Float], k: [Float], v: [Float], batch: Int, l: Int, s: Int, e: Int, ev: Int,
                          mask: (Int, Int, Int) -> Double) -> [Float] {
        var result: [Float] = []
        for b in 0..<batch {
            for i in 0..<l {
                let scores = (0..<s).map { j in
                    (0..<e).reduce(0.0) { $0 + Double(q[(b * l + i) * e + $1]) * Double(k[(b * s + j) * e + $1]) } / Double(e).squareRoot()
                        + mask(b, i, j)
                }
                let largest = scores.max() ?? -.infinity
                guard largest > -.infinity else {
                    result += [Float](repeating: 0, count: ev)
                    continue
                }
                let weights = scores.map { exp($0 - largest) }, total = weights.reduce(0, +)
                for c in 0..<ev {
                    result.append(Float((0..<s).reduce(0.0) { $0 + weights[$1] / total * Double(v[(b * s + $1) * ev + c]) }))
                }
            }
        }
        return result
    }

    static func expectClose(_ actual: MILTensor?, _ expected: [Float], shape: [Int], _ comment: Comment) {
        #expect(actual?.shape == shape, comment)
        guard let actual, actual.values.count == expected.count else { return #expect(Bool(false), comment) }
        let worst = zip(actual.values, expected).map { abs($0 - $1) }.max() ?? 0
        #expect(worst <= 1e-5, "\(comment): off by \(worst); \(actual.values) against \(expected)")
    }

    /// A program of one attention over inputs q, k, v (and the mask input or constant `mask`).
    static func program(q: [Int], k: [Int], v: [Int], mask: ((inout Program) -> Void)? = nil) -> Program {
        var p = Program()
        p.input("q", q)
        p.input("k", k)
        p.input("v", v)
        var inputs = ["query": ["q"], "key": ["k"], "value": ["v"]]
        if let mask {
            mask(&p)
            inputs["attn_mask"] = ["mask"]
        }
        p.operation("scaled_dot_product_attention", inputs, output: "y")
        return p
    }

    @Test func withoutAMaskItIsTheScaledSoftmaxOfTheScoresTimesTheValues() throws {
        // Cross-attention shapes: L = 3 queries, S = 4 keys, E = 2, EV = 3, two batch elements.
        let q = Self.values(12, seed: 0.3), k = Self.values(16, seed: 1.1).map { $0 * 3 }, v = Self.values(24, seed: 2.0)
        let plan = try Self.program(q: [2, 3, 2], k: [2, 4, 2], v: [2, 4, 3]).plan(outputs: ["y"])
        let y = try plan.run(["q": MILTensor(shape: [2, 3, 2], values: q), "k": MILTensor(shape: [2, 4, 2], values: k),
                              "v": MILTensor(shape: [2, 4, 3], values: v)])["y"]
        Self.expectClose(y, Self.reference(q: q, k: k, v: v, batch: 2, l: 3, s: 4, e: 2, ev: 3) { _, _, _ in 0 }, shape: [2, 3, 3], "no mask")
    }

    @Test func aBoolMaskKeepsTheScoresWhereItIsTrueBroadcastOverTheBatch() throws {
        let q = Self.values(12, seed: 0.5), k = Self.values(16, seed: 1.5).map { $0 * 2 }, v = Self.values(24, seed: 2.5)
        // [L, S] for every batch element; the last query may attend to no key at all.
        let keep: [[Float]] = [[1, 0, 1, 1], [1, 1, 0, 0], [0, 0, 0, 0]]
        let plan = try Self.program(q: [2, 3, 2], k: [2, 4, 2], v: [2, 4, 3]) { $0.input("mask", [3, 4], .bool) }.plan(outputs: ["y"])
        let y = try plan.run(["q": MILTensor(shape: [2, 3, 2], values: q), "k": MILTensor(shape: [2, 4, 2], values: k),
                              "v": MILTensor(shape: [2, 4, 3], values: v), "mask": MILTensor(shape: [3, 4], values: keep.flatMap { $0 })])["y"]
        let expected = Self.reference(q: q, k: k, v: v, batch: 2, l: 3, s: 4, e: 2, ev: 3) { _, i, j in keep[i][j] != 0 ? 0 : -.infinity }
        Self.expectClose(y, expected, shape: [2, 3, 3], "bool mask [3, 4]")
        #expect(y.map { Array($0.values[6..<9] + $0.values[15..<18]) } == [Float](repeating: 0, count: 6), "a query with no key attends to nothing")
        // The same scores without the mask differ, so a mask that were ignored would fail above.
        let unmasked = Self.reference(q: q, k: k, v: v, batch: 2, l: 3, s: 4, e: 2, ev: 3) { _, _, _ in 0 }
        #expect(zip(unmasked, expected).map { abs($0 - $1) }.max()! > 0.05)
    }

    @Test func aFloatMaskIsAddedBroadcastOverTheQueries() throws {
        // B = 1, two heads, L = 3, S = 4, E = 2, EV = 2; the mask [2, 1, 4] is one key bias per head.
        let q = Self.values(12, seed: 0.7), k = Self.values(16, seed: 1.9).map { $0 * 2 }, v = Self.values(16, seed: 2.9)
        let bias: [[Float]] = [[0.5, -1, -.infinity, 0], [-30, 0, 1.5, -0.25]]
        let plan = try Self.program(q: [1, 2, 3, 2], k: [1, 2, 4, 2], v: [1, 2, 4, 2]) {
            $0.constant("mask", floats: bias.flatMap { $0 }, shape: [2, 1, 4])
        }.plan(outputs: ["y"])
        let y = try plan.run(["q": MILTensor(shape: [1, 2, 3, 2], values: q), "k": MILTensor(shape: [1, 2, 4, 2], values: k),
                              "v": MILTensor(shape: [1, 2, 4, 2], values: v)])["y"]
        Self.expectClose(y, Self.reference(q: q, k: k, v: v, batch: 2, l: 3, s: 4, e: 2, ev: 2) { h, _, j in Double(bias[h][j]) },
                         shape: [1, 2, 3, 2], "float mask [2, 1, 4]")
    }

    @Test func shapesAndMasksThatDoNotFitAreErrorsAndNoKeysGiveZeros() throws {
        let inputs = { (q: [Int], k: [Int], v: [Int]) in
            ["q": MILTensor(shape: q, values: Self.values(q.reduce(1, *), seed: 0)), "k": MILTensor(shape: k, values: Self.values(k.reduce(1, *), seed: 1)),
             "v": MILTensor(shape: v, values: Self.values(v.reduce(1, *), seed: 2))]
        }
        let plain = try Self.program(q: [1, 3, 2], k: [1, 4, 2], v: [1, 4, 3]).plan(outputs: ["y"])
        #expect(throws: EngineError.self, "E differs") { try plain.run(inputs([1, 3, 2], [1, 4, 3], [1, 4, 3])) }
        #expect(throws: EngineError.self, "S differs") { try plain.run(inputs([1, 3, 2], [1, 4, 2], [1, 5, 3])) }
        #expect(throws: EngineError.self, "batch differs") { try plain.run(inputs([1, 3, 2], [2, 4, 2], [2, 4, 3])) }
        #expect(throws: EngineError.self, "rank 2") { try plain.run(inputs([3, 2], [4, 2], [4, 3])) }
        // No keys at all: every query attends to nothing.
        #expect(try plain.run(inputs([1, 3, 2], [1, 0, 2], [1, 0, 3]))["y"] == MILTensor(shape: [1, 3, 3], values: [Float](repeating: 0, count: 9)))

        for maskShape in [[3, 5], [2, 1, 3, 4]] {  // a wrong S; a mask that would enlarge the scores
            let masked = try Self.program(q: [1, 3, 2], k: [1, 4, 2], v: [1, 4, 3]) { $0.input("mask", maskShape) }.plan(outputs: ["y"])
            var values = inputs([1, 3, 2], [1, 4, 2], [1, 4, 3])
            values["mask"] = MILTensor(shape: maskShape, values: [Float](repeating: 0, count: maskShape.reduce(1, *)))
            #expect(throws: EngineError.self, "mask \(maskShape)") { try masked.run(values) }
        }
        #expect(throws: EngineError.self, "an int32 mask") {
            try Self.program(q: [1, 3, 2], k: [1, 4, 2], v: [1, 4, 3]) { $0.input("mask", [3, 4], .int32) }.plan(outputs: ["y"])
        }
    }
}
