import Testing
@testable import _OpenCoreMLEngine

/// Hardswish as coremltools writes it, `mul(t, sigmoid_hard(t))` with `t = thresholded_relu(x)`,
/// runs as one step, and inside a convolution that alone makes x (the GEMM's epilogue, the
/// depthwise kernel's planes), with the values of the three operations run one by one.
@Suite("ML Program hardswish pattern")
struct ProgramPlanHardSwishTests {
    typealias Program = ProgramPlanTests.Program

    /// x: 1×3×4×4, values from −5 to 5 in steps of 10/47, −3 and 3 (the gate's corners) among them.
    static let x: MILTensor = {
        var values = (0..<48).map { -5 + Float($0) * 10 / 47 }
        values[5] = -3
        values[40] = 3
        return MILTensor(shape: [1, 3, 4, 4], values: values)
    }()

    /// PyTorch's hardswish, `x·relu6(x + 3)/6`, in Double: the reference.
    static func hardswish(_ v: Float) -> Float {
        let x = Double(v)
        return Float(x * min(max(x + 3, 0), 6) / 6)
    }

    enum Producer: CaseIterable {
        /// x itself (an input): the one-pass step.
        case none
        /// A 1×1 convolution by the identity (the GEMM path): x unchanged.
        case pointwise
        /// A depthwise 3×3 convolution, padding "same" (the depthwise kernel's path).
        case depthwise
    }

    /// The pattern over x or a convolution's output `c`; `swapped` writes the product as `mul(s, t)`.
    static func program(_ producer: Producer, swapped: Bool = false) -> Program {
        var p = Program()
        p.input("x", [1, 3, 4, 4])
        p.constant("cut", floats: [-3], shape: [])
        p.constant("slope", floats: [1.0 / 6], shape: [])
        p.constant("offset", floats: [0.5], shape: [])
        var source = "x"
        switch producer {
        case .none: break
        case .pointwise:
            p.constant("w", floats: [1, 0, 0, 0, 1, 0, 0, 0, 1], shape: [3, 3, 1, 1])
            p.operation("conv", ["x": ["x"], "weight": ["w"]], output: "c")
            source = "c"
        case .depthwise:
            // Each channel's kernel: its centre 1, one neighbour c·0.25 (a sum the values can check).
            var weights = [Float](repeating: 0, count: 27)
            for c in 0..<3 {
                weights[c * 9 + 4] = 1
                weights[c * 9 + 5] = Float(c) * 0.25
            }
            p.constant("w", floats: weights, shape: [3, 1, 3, 3])
            p.constant("groups", ints: [3], shape: [])
            p.constant("same", string: "same", shape: [])
            p.operation("conv", ["x": ["x"], "weight": ["w"], "groups": ["groups"], "pad_type": ["same"]], output: "c")
            source = "c"
        }
        if producer != .none { p.block.operations[p.block.operations.count - 1].outputs[0].type = Program.type([1, 3, 4, 4]) }
        p.operation("thresholded_relu", ["x": [source], "alpha": ["cut"]], output: "t")
        p.operation("sigmoid_hard", ["x": ["t"], "alpha": ["slope"], "beta": ["offset"]], output: "s")
        p.operation("mul", swapped ? ["x": ["s"], "y": ["t"]] : ["x": ["t"], "y": ["s"]], output: "y")
        return p
    }

    static func stepTypes(_ plan: ProgramPlan) throws -> [String] {
        try plan.profile(["x": x], runs: 1, clock: .wall).steps.map(\.type)
    }

    @Test(arguments: [false, true])
    func thePatternRunsAsOneStep(swapped: Bool) throws {
        let plan = try Self.program(.none, swapped: swapped).plan(outputs: ["y"])
        #expect(try Self.stepTypes(plan) == ["mul (hardswish)"])
        let y = try #require(try plan.run(["x": Self.x])["y"])
        #expect(y.shape == Self.x.shape)
        for (value, input) in zip(y.values, Self.x.values) {
            #expect(abs(value - Self.hardswish(input)) <= 1e-6, "hardswish(\(input)) = \(value), not \(Self.hardswish(input))")
        }
    }

    /// Inside either convolution path the result equals the three operations run one by one after
    /// the convolution (kept apart by making `t` an output too).
    @Test(arguments: [Producer.pointwise, .depthwise])
    func aConvolutionThatAloneMakesXRunsTheHardswish(producer: Producer) throws {
        let fused = try Self.program(producer).plan(outputs: ["y"])
        #expect(try Self.stepTypes(fused) == ["conv + hardswish"])
        let apart = try Self.program(producer).plan(outputs: ["y", "t"])
        #expect(try Self.stepTypes(apart) == ["conv", "thresholded_relu", "sigmoid_hard", "mul"])
        let (y, reference) = (try #require(try fused.run(["x": Self.x])["y"]), try #require(try apart.run(["x": Self.x])["y"]))
        #expect(y.shape == reference.shape)
        for (value, expected) in zip(y.values, reference.values) { #expect(abs(value - expected) <= 1e-6) }
        // And neither is the identity: the hardswish zeroed the inputs at or below −3.
        #expect(y.values.filter { $0 == 0 }.count >= 6)
    }

    /// When the thresholded ReLU's output is read elsewhere too, or the convolution's, the
    /// operations that stay outside the step run as written, with the same result.
    @Test func notFusedWhenAnIntermediateHasAnotherReader() throws {
        let plan = try Self.program(.none).plan(outputs: ["y", "s"])
        #expect(try Self.stepTypes(plan) == ["thresholded_relu", "sigmoid_hard", "mul"])
        let kept = try Self.program(.pointwise).plan(outputs: ["y", "c"])
        #expect(try Self.stepTypes(kept) == ["conv", "mul (hardswish)"])
        let result = try kept.run(["x": Self.x])
        #expect(result["c"]?.values == Self.x.values)
        for (value, input) in zip(try #require(result["y"]).values, Self.x.values) { #expect(abs(value - Self.hardswish(input)) <= 1e-6) }
    }
}
