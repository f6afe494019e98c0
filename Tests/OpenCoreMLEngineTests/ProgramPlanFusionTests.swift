import Testing
@testable import _OpenCoreMLEngine

/// A `conv` or `add` followed by an activation that only it feeds runs as one step (bias and
/// activation in the GEMM's epilogue, or in the depthwise kernel; after the sum): the fused program
/// must give what the same program gives when the first output is also a program output (so
/// nothing fuses).
@Suite("ML Program fusion")
struct ProgramPlanFusionTests {
    typealias Program = ProgramPlanTests.Program

    /// Deterministic values in [-1, 1).
    static func values(_ count: Int, seed: Int) -> [Float] {
        (0..<count).map { Float((($0 + seed) * 7919 + seed * 104_729) % 2000) / 1000 - 1 }
    }

    /// `x` (1×`channels`×5×6) through a `conv` with bias into `activation`; the plan fused, and
    /// the plan with the convolution's output also returned (not fused).
    static func plans(activation: String, channels: Int, outChannels: Int, kernel: Int, groups: Int, padType: String)
        throws -> (fused: ProgramPlan, unfused: ProgramPlan, input: MILTensor) {
        var p = Program()
        p.input("x", [1, channels, 5, 6])
        let perGroup = channels / groups
        p.constant("w", floats: values(outChannels * perGroup * kernel * kernel, seed: 1), shape: [outChannels, perGroup, kernel, kernel])
        p.constant("b", floats: values(outChannels, seed: 2), shape: [outChannels])
        p.constant("strides", ints: [1, 1], shape: [2])
        p.constant("dilations", ints: [1, 1], shape: [2])
        p.constant("groups", ints: [Int32(groups)], shape: [])
        p.constant("pad_type", string: padType, shape: [])
        p.operation("conv", ["x": ["x"], "weight": ["w"], "bias": ["b"], "strides": ["strides"], "dilations": ["dilations"],
                             "groups": ["groups"], "pad_type": ["pad_type"]], output: "convolved")
        p.operation(activation, ["x": ["convolved"]], output: "y")
        let input = MILTensor(shape: [1, channels, 5, 6], values: values(channels * 30, seed: 3).map { $0 * 3 })
        return (try p.plan(outputs: ["y"]), try p.plan(outputs: ["y", "convolved"]), input)
    }

    static func expectAgreement(activation: String, channels: Int, outChannels: Int, kernel: Int, groups: Int, padType: String) throws {
        let (fused, unfused, input) = try plans(activation: activation, channels: channels, outChannels: outChannels, kernel: kernel,
                                                groups: groups, padType: padType)
        let together = try #require(try fused.run(["x": input])["y"])
        let apart = try unfused.run(["x": input])
        let y = try #require(apart["y"]), convolved = try #require(apart["convolved"])
        #expect(together.shape == y.shape)
        #expect(convolved.values.contains { $0 < 0 }, "the test needs negative values before the activation")
        for (a, b) in zip(together.values, y.values) { #expect(abs(a - b) <= 1e-5) }
    }

    @Test func convolutionWithReLU() throws {
        try Self.expectAgreement(activation: "relu", channels: 3, outChannels: 4, kernel: 3, groups: 1, padType: "same")
    }

    @Test func pointwiseConvolutionWithReLU6() throws {
        // 1×1, stride 1, no padding: the GEMM reads the input's channels without im2col.
        try Self.expectAgreement(activation: "relu6", channels: 5, outChannels: 7, kernel: 1, groups: 1, padType: "valid")
    }

    /// A NaN in the input stays NaN through a fused `relu`, as through the operations run apart.
    @Test(arguments: [1, 4])
    func reluKeepsNaNFusedOrNot(groups: Int) throws {
        let (fused, unfused, input) = try Self.plans(activation: "relu", channels: 4, outChannels: 4, kernel: 3, groups: groups, padType: "same")
        var values = input.values
        values[7] = .nan
        let poisoned = MILTensor(shape: input.shape, values: values)
        let together = try #require(try fused.run(["x": poisoned])["y"]), apart = try #require(try unfused.run(["x": poisoned])["y"])
        #expect(together.values.contains { $0.isNaN })
        #expect(zip(together.values, apart.values).allSatisfy { $0.isNaN == $1.isNaN }, "groups \(groups)")
    }

    @Test func groupedAndDepthwiseConvolutionsWithReLU() throws {
        try Self.expectAgreement(activation: "relu", channels: 4, outChannels: 6, kernel: 3, groups: 2, padType: "valid")
        try Self.expectAgreement(activation: "relu", channels: 4, outChannels: 4, kernel: 3, groups: 4, padType: "same")
    }

    /// A residual block's `add` and `relu`: same shapes (the C kernel) and broadcast, NaN kept.
    @Test(arguments: [[2, 3, 4], [3, 1]])
    func additionWithReLU(yShape: [Int]) throws {
        var p = Program()
        p.input("x", [2, 3, 4])
        p.input("y", yShape)
        p.operation("add", ["x": ["x"], "y": ["y"]], output: "sum")
        p.operation("relu", ["x": ["sum"]], output: "z")
        #expect(ProgramPlan.Builder.fusion(at: 0, in: p.block.operations, readers: ["sum": 1])?.activation == .clamp(lower: 0, upper: .infinity))
        var x = MILTensor(shape: [2, 3, 4], values: Self.values(24, seed: 4))
        x.values[5] = .nan
        let y = MILTensor(shape: yShape, values: Self.values(yShape.reduce(1, *), seed: 5))
        let together = try #require(try p.plan(outputs: ["z"]).run(["x": x, "y": y])["z"])
        let apart = try p.plan(outputs: ["z", "sum"]).run(["x": x, "y": y])
        let sum = try #require(apart["sum"])
        #expect(sum.values.contains { $0 < 0 }, "the test needs negative sums")
        #expect(together.values[5].isNaN)
        #expect(together.values.map(\.bitPattern) == apart["z"]?.values.map(\.bitPattern))
        #expect(together.values.enumerated().allSatisfy { $0.offset == 5 || $0.element == max(sum.values[$0.offset], 0) })
    }

    @Test func onlyAnActivationThatAloneReadsTheConvolutionIsFused() throws {
        var p = Program()
        p.input("x", [1, 1, 2, 2])
        p.operation("conv", ["x": ["x"]], output: "c")
        p.operation("relu", ["x": ["c"]], output: "y")
        p.operation("relu", ["x": ["y"]], output: "z")
        let operations = p.block.operations
        let fused = ProgramPlan.Builder.fusion(at: 0, in: operations, readers: ["c": 1])
        #expect(fused?.activation == .clamp(lower: 0, upper: .infinity) && fused?.output.name == "y")
        #expect(ProgramPlan.Builder.fusion(at: 0, in: operations, readers: ["c": 2]) == nil)  // also read elsewhere
        #expect(ProgramPlan.Builder.fusion(at: 1, in: operations, readers: ["y": 1]) == nil)  // relu is not a fusing type
        #expect(ProgramPlan.Builder.readerCounts(ProgramPlan.Builder.namesRead(operations), outputs: ["c"]) == ["x": 1, "c": 2, "y": 1])
    }

    /// `ceil_mode` (PyTorch's): a last window that runs past the end counts, unless it would start
    /// past the input and half the padding; an average that would need a clipped divisor is refused.
    @Test func poolingInCeilMode() throws {
        func pool(_ type: String = "max_pool", size: Int, kernel: Int, stride: Int, pad: [Int32], exclude: Bool = false) throws -> MILTensor? {
            var p = Program()
            p.input("x", [1, 1, size, size])
            p.constant("kernel", ints: [Int32(kernel), Int32(kernel)], shape: [2])
            p.constant("strides", ints: [Int32(stride), Int32(stride)], shape: [2])
            p.constant("custom", string: "custom", shape: [])
            p.constant("pad", ints: pad, shape: [4])
            p.constant("ceil", ints: [1], shape: [])
            p.constant("exclude", ints: [exclude ? 1 : 0], shape: [])
            p.operation(type, ["x": ["x"], "kernel_sizes": ["kernel"], "strides": ["strides"], "pad_type": ["custom"], "pad": ["pad"],
                               "ceil_mode": ["ceil"], "exclude_padding_from_average": ["exclude"]], output: "pooled")
            return try p.plan(outputs: ["pooled"]).run(["x": MILTensor(shape: [1, 1, size, size], values: (0..<(size * size)).map(Float.init))])["pooled"]
        }
        // 5×5 by 2×2 windows: the third row and column of windows hold one input row or column.
        #expect(try pool(size: 5, kernel: 2, stride: 2, pad: [0, 0, 0, 0]) == MILTensor(shape: [1, 1, 3, 3], values: [6, 8, 9, 16, 18, 19, 21, 23, 24]))
        // 6×6 padded by 1, 3×3 windows of stride 2: four windows a side (three without ceil_mode).
        #expect(try pool(size: 6, kernel: 3, stride: 2, pad: [1, 1, 1, 1])?.values == [7, 9, 11, 11, 19, 21, 23, 23, 31, 33, 35, 35, 31, 33, 35, 35])
        // 5 padded by 1 each side, 2×2 stride 2: a fourth window would start at 6 ≥ 5 + 2/2, so three.
        #expect(try pool(size: 5, kernel: 2, stride: 2, pad: [1, 1, 1, 1])?.shape == [1, 1, 3, 3])
        #expect(try pool("avg_pool", size: 5, kernel: 2, stride: 2, pad: [0, 0, 0, 0], exclude: true)?.values.last == 24)
        #expect(throws: EngineError.self) { try pool("avg_pool", size: 5, kernel: 2, stride: 2, pad: [0, 0, 0, 0]) }
    }

    /// An empty plane is refused, padded or not: a padded window over it would read padding only,
    /// and its output would never be written.
    @Test func anEmptyPlaneIsRefused() throws {
        var p = Program()
        p.input("x", [1, 1, 0, 3])
        p.constant("kernel", ints: [2, 2], shape: [2])
        p.constant("strides", ints: [1, 1], shape: [2])
        p.constant("custom", string: "custom", shape: [])
        p.constant("pad", ints: [1, 1, 1, 1], shape: [4])
        p.operation("max_pool", ["x": ["x"], "kernel_sizes": ["kernel"], "strides": ["strides"], "pad_type": ["custom"], "pad": ["pad"]],
                    output: "pooled")
        let plan = try p.plan(outputs: ["pooled"])
        var message = ""
        do { _ = try plan.run(["x": MILTensor(shape: [1, 1, 0, 3], values: [])]) } catch { message = "\(error)" }
        #expect(message.contains("the input plane 0×3 is empty"))
    }

    @Test func maxPoolingWithPadding() throws {
        var p = Program()
        p.input("x", [1, 1, 3, 3])
        p.constant("kernel", ints: [2, 2], shape: [2])
        p.constant("strides", ints: [2, 2], shape: [2])
        p.constant("same", string: "same", shape: [])
        p.operation("max_pool", ["x": ["x"], "kernel_sizes": ["kernel"], "strides": ["strides"], "pad_type": ["same"]], output: "pooled")
        let result = try p.plan(outputs: ["pooled"]).run(["x": MILTensor(shape: [1, 1, 3, 3], values: [-1, -2, -3, -4, -5, -6, -7, -8, -9])])
        // Padding (bottom/right) never wins, even over negative values.
        #expect(result["pooled"] == MILTensor(shape: [1, 1, 2, 2], values: [-1, -3, -7, -9]))
    }
}
