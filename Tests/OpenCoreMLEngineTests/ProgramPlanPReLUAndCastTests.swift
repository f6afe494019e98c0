import Testing
@testable import _OpenCoreMLEngine

/// PReLU spelled `select(greater_equal(x, 0), x, mul(x, alpha))` runs as one step (and inside a
/// convolution that alone makes x), and the casts around an fp16 program's float32 arithmetic go.
@Suite("ML Program PReLU pattern and cast removal")
struct ProgramPlanPReLUAndCastTests {
    typealias Program = ProgramPlanTests.Program

    /// x: 1×3×2×2, channel c holding c+1 times [-2, -1, 0.5, 3] (so every channel has negatives).
    static let x = MILTensor(shape: [1, 3, 2, 2], values: (0..<3).flatMap { c in [-2, -1, 0.5, 3].map { Float(c + 1) * $0 } })
    static let slopes: [Float] = [0.25, 0.5, -1]

    /// By hand: negatives times their channel's slope, the rest as they are.
    /// channel 0 (slope 0.25): -2, -1, 0.5, 3 → -0.5, -0.25, 0.5, 3
    /// channel 1 (slope 0.5):  -4, -2, 1, 6   → -2, -1, 1, 6
    /// channel 2 (slope -1):   -6, -3, 1.5, 9 → 6, 3, 1.5, 9
    static let expected: [Float] = [-0.5, -0.25, 0.5, 3, -2, -1, 1, 6, 6, 3, 1.5, 9]

    enum Spelling: CaseIterable {
        case greaterEqual, greater, zeroOnTheLeft, inverted, slopeFirst
    }

    /// The pattern over input `x` (or a convolution's output `c` when `convolution`), the slopes a
    /// constant of `alphaShape`.
    static func program(_ spelling: Spelling = .greaterEqual, alphaShape: [Int] = [1, 3, 1, 1], alpha: [Float] = slopes,
                        convolution: Bool = false) -> Program {
        var p = Program()
        p.input("x", [1, 3, 2, 2])
        p.constant("zero", floats: [0], shape: [])
        p.constant("alpha", floats: alpha, shape: alphaShape)
        var source = "x"
        if convolution {
            // A 1×1 convolution by the identity: c = x, so the expected values stay the same.
            p.constant("w", floats: [1, 0, 0, 0, 1, 0, 0, 0, 1], shape: [3, 3, 1, 1])
            p.operation("conv", ["x": ["x"], "weight": ["w"]], output: "c")
            p.block.operations[p.block.operations.count - 1].outputs[0].type = Program.type([1, 3, 2, 2])
            source = "c"
        }
        switch spelling {
        case .greaterEqual, .slopeFirst: p.operation("greater_equal", ["x": [source], "y": ["zero"]], output: "positive")
        case .greater: p.operation("greater", ["x": [source], "y": ["zero"]], output: "positive")
        case .zeroOnTheLeft: p.operation("less_equal", ["x": ["zero"], "y": [source]], output: "positive")
        case .inverted: p.operation("less", ["x": [source], "y": ["zero"]], output: "negative")
        }
        p.operation("mul", spelling == .slopeFirst ? ["x": ["alpha"], "y": [source]] : ["x": [source], "y": ["alpha"]], output: "scaled")
        if spelling == .inverted {
            p.operation("select", ["cond": ["negative"], "a": ["scaled"], "b": [source]], output: "y")
        } else {
            p.operation("select", ["cond": ["positive"], "a": [source], "b": ["scaled"]], output: "y")
        }
        return p
    }

    /// The operation types of a plan's steps, as a profile names them.
    static func stepTypes(_ plan: ProgramPlan) throws -> [String] {
        try plan.profile(["x": x], runs: 1, clock: .wall).steps.map(\.type)
    }

    @Test(arguments: Spelling.allCases)
    func thePatternRunsAsOneStep(spelling: Spelling) throws {
        let plan = try Self.program(spelling).plan(outputs: ["y"])
        #expect(try Self.stepTypes(plan) == ["select (prelu)"])
        #expect(try plan.run(["x": Self.x])["y"] == MILTensor(shape: [1, 3, 2, 2], values: Self.expected))
    }

    @Test func oneSharedSlope() throws {
        let plan = try Self.program(alphaShape: [], alpha: [0.5]).plan(outputs: ["y"])
        #expect(try Self.stepTypes(plan) == ["select (prelu)"])
        // Every negative halved: channel 0 -1, -0.5; channel 1 -2, -1; channel 2 -3, -1.5.
        #expect(try plan.run(["x": Self.x])["y"]?.values == [-1, -0.5, 0.5, 3, -2, -1, 1, 6, -3, -1.5, 1.5, 9])
    }

    /// When the comparison or the product is read elsewhere too, the operations run one by one,
    /// with the same result.
    @Test(arguments: ["positive", "scaled"])
    func notFusedWhenAnIntermediateHasAnotherReader(intermediate: String) throws {
        let plan = try Self.program().plan(outputs: ["y", intermediate])
        #expect(try Self.stepTypes(plan) == ["greater_equal", "mul", "select"])
        #expect(try plan.run(["x": Self.x])["y"]?.values == Self.expected)
    }

    /// Slopes that vary along two axes are no PReLU: run as written.
    @Test func slopesAlongTwoAxesAreNotAPReLU() throws {
        let alpha: [Float] = [0.25, 0.5, -1, 0.25, 0.5, -1]
        let plan = try Self.program(alphaShape: [1, 3, 2, 1], alpha: alpha).plan(outputs: ["y"])
        #expect(try Self.stepTypes(plan) == ["greater_equal", "mul", "select"])
        // Slopes by (channel, row): 0.25, 0.5 | −1, 0.25 | 0.5, −1; only the first rows hold negatives:
        // channel 0 −2, −1 → −0.5, −0.25; channel 1 −4, −2 → 4, 2; channel 2 −6, −3 → −3, −1.5.
        #expect(try plan.run(["x": Self.x])["y"]?.values == [-0.5, -0.25, 0.5, 3, 4, 2, 1, 6, -3, -1.5, 1.5, 9])
    }

    @Test func aConvolutionThatAloneMakesXRunsThePReLU() throws {
        let plan = try Self.program(convolution: true).plan(outputs: ["y"])
        #expect(try Self.stepTypes(plan) == ["conv + select (prelu)"])
        #expect(try plan.run(["x": Self.x])["y"]?.values == Self.expected)
        // The convolution's output also leaves the program: it is kept, and the PReLU is its own step.
        let kept = try Self.program(convolution: true).plan(outputs: ["y", "c"])
        #expect(try Self.stepTypes(kept) == ["conv", "select (prelu)"])
        let result = try kept.run(["x": Self.x])
        #expect(result["y"]?.values == Self.expected)
        #expect(result["c"]?.values == Self.x.values)
    }

    /// `prelu(add(x, x), alpha)`, as BlazeFace's blocks end: one step, the slopes applied to the
    /// sum in place; unfused when the sum is read elsewhere too, with the same values (PReLU of 2x
    /// is twice PReLU of x).
    @Test func aPReLUAfterAnAddRunsInTheAddsStep() throws {
        func program(slopes: [Float], shape: [Int]) -> Program {
            var p = Program()
            p.input("x", [1, 3, 2, 2])
            p.constant("alpha", floats: slopes, shape: shape)
            p.operation("add", ["x": ["x"], "y": ["x"]], output: "sum")
            p.operation("prelu", ["x": ["sum"], "alpha": ["alpha"]], output: "y")
            return p
        }
        let doubled = Self.expected.map { 2 * $0 }
        let fused = try program(slopes: Self.slopes, shape: [3]).plan(outputs: ["y"])
        #expect(try Self.stepTypes(fused) == ["add + prelu"])
        #expect(try fused.run(["x": Self.x])["y"]?.values == doubled)
        let apart = try program(slopes: Self.slopes, shape: [3]).plan(outputs: ["y", "sum"])
        #expect(try Self.stepTypes(apart) == ["add", "prelu"])
        #expect(try apart.run(["x": Self.x])["y"]?.values == doubled)
        // Slopes that do not fit the channels are the same error either way.
        let wrong = try program(slopes: [0.5, 0.5], shape: [2]).plan(outputs: ["y"])
        #expect(throws: EngineError.self) { try wrong.run(["x": Self.x]) }
    }

    /// x → cast fp16 → add to itself → cast fp32: the first cast goes, the sum is float32's (the
    /// last cast, whose output leaves the program, stays: it shares the sum's storage).
    @Test func castsAroundFloat32ArithmeticAreRemoved() throws {
        var p = Program()
        p.input("x", [4])
        p.constant("fp16", string: "fp16", shape: [])
        p.constant("fp32", string: "fp32", shape: [])
        p.operation("cast", ["x": ["x"], "dtype": ["fp16"]], output: "half")
        p.block.operations[p.block.operations.count - 1].outputs[0].type = Program.type([4], .float16)
        p.operation("add", ["x": ["half"], "y": ["half"]], output: "sum")
        p.operation("cast", ["x": ["sum"], "dtype": ["fp32"]], output: "y")
        let plan = try p.plan(outputs: ["y"])
        let x = MILTensor(shape: [4], values: [1.0001, 2, -3, 70_000])
        #expect(try plan.profile(["x": x], runs: 1, clock: .wall).steps.map(\.type) == ["add", "cast"])
        // Doubling is exact in float32. Had the first cast rounded to float16, 1.0001 would have
        // become 1 (float16 steps by 2⁻¹⁰ there) and 70000, past float16's 65504, infinity.
        #expect(try plan.run(["x": x])["y"]?.values == [2.0002, 4, -6, 140_000])
    }

    /// A cast whose output leaves the program, and a cast to an integer type, are kept.
    @Test func observableAndIntegerCastsAreKept() throws {
        var p = Program()
        p.input("x", [3])
        p.constant("fp16", string: "fp16", shape: [])
        p.constant("int32", string: "int32", shape: [])
        p.operation("cast", ["x": ["x"], "dtype": ["fp16"]], output: "half")
        p.operation("cast", ["x": ["x"], "dtype": ["int32"]], output: "integer")
        p.operation("add", ["x": ["integer"], "y": ["integer"]], output: "sum")
        let plan = try p.plan(outputs: ["half", "sum"])
        let x = MILTensor(shape: [3], values: [1.0001, -2.7, 70_000])
        let result = try plan.run(["x": x])
        #expect(result["half"]?.values == [1, -2.69921875, .infinity])  // float16: 1, −2.7 to the nearest 2⁻⁹, ∞
        #expect(result["sum"]?.values == [2, -4, 140_000])               // truncated toward zero, then doubled
    }

    /// An fp16 cast whose value is then rounded to a whole number stays: 2.9999 is 3 in float16, so
    /// int32 of the float16 value is 3 where int32 of the float32 value would be 2.
    @Test func anFP16CastBeforeRoundingIsKept() throws {
        var p = Program()
        p.input("x", [2])
        p.constant("fp16", string: "fp16", shape: [])
        p.constant("int32", string: "int32", shape: [])
        p.operation("cast", ["x": ["x"], "dtype": ["fp16"]], output: "half")
        p.block.operations[p.block.operations.count - 1].outputs[0].type = Program.type([2], .float16)
        p.operation("cast", ["x": ["half"], "dtype": ["int32"]], output: "y")
        let plan = try p.plan(outputs: ["y"])
        let x = MILTensor(shape: [2], values: [2.9999, -1.99999])
        #expect(try plan.profile(["x": x], runs: 1, clock: .wall).steps.map(\.type) == ["cast", "cast"])
        #expect(try plan.run(["x": x])["y"]?.values == [3, -2])
    }

    /// Slopes that are not finite are no PReLU to fuse: at x = 0 select gives 0, while 0·∞ is NaN.
    @Test func infiniteSlopesRunAsWritten() throws {
        let plan = try Self.program(alphaShape: [], alpha: [.infinity]).plan(outputs: ["y"])
        #expect(try Self.stepTypes(plan) == ["greater_equal", "mul", "select"])
        let zeros = MILTensor(shape: [1, 3, 2, 2], values: [Float](repeating: 0, count: 12))
        #expect(try plan.run(["x": zeros])["y"]?.values == zeros.values)
    }

    /// A comparison constant of a higher rank than x broadcasts select's output up: run as written,
    /// so the output keeps that rank.
    @Test func aZeroOfHigherRankIsNotFused() throws {
        var p = Self.program()
        let index = p.block.operations.firstIndex { $0.type == "const" && $0.outputs[0].name == "zero" }!
        p.block.operations.remove(at: index)
        p.constant("zero", floats: [0], shape: [1, 1, 1, 1, 1])
        let moved = p.block.operations.removeLast()
        p.block.operations.insert(moved, at: index)
        let plan = try p.plan(outputs: ["y"])
        #expect(try Self.stepTypes(plan) == ["greater_equal", "mul", "select"])
        #expect(try plan.run(["x": Self.x])["y"]?.shape == [1, 1, 3, 2, 2])
    }
}
