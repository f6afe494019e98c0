import Testing
@testable import _OpenCoreMLEngine

/// The ML Program's image, detection, contraction and convolution operations beyond 2-D constant
/// kernels: `conv` of 1 and 3 spatial axes and with computed weights, `conv_transpose` likewise,
/// `einsum`, `resample`, `affine`, `crop_resize`, `non_maximum_suppression` and `classify`.
///
/// Expected values: PyTorch (`F.conv1d`, `F.conv3d`, `F.conv_transpose1d/3d`, `F.grid_sample`) and
/// numpy (`np.einsum`) on the inputs `seq` makes, by this script (torch 2.13, numpy 2.2):
///
///     def seq(n, a=7, m=11, o=5, d=4.0): return np.array([((i*a) % m - o)/d for i in range(n)], dtype=np.float32)
///     x=torch.tensor(seq(10)).reshape(1,2,5); w=torch.tensor(seq(18,5,13,6)).reshape(3,2,3); b=torch.tensor([0.5,-1,0.25])
///     conv1d = F.conv1d(F.pad(x,(1,2)), w, b, stride=2)
///     x=torch.tensor(seq(96)).reshape(1,2,3,4,4); w=torch.tensor(seq(32,5,13,6)).reshape(4,1,2,2,2); b=torch.tensor([1.,0,-1,.5])
///     conv3d = F.conv3d(F.pad(x,(1,1,1,0,0,1)), w, b, stride=(1,2,1), groups=2)
///     x=torch.tensor(seq(24)).reshape(1,2,2,2,3); w=torch.tensor(seq(48,5,13,6)).reshape(2,3,2,2,2); b=torch.tensor([.5,0,-.5])
///     convT3d = F.conv_transpose3d(x, w, b, stride=(2,1,2))
///     x=torch.tensor(seq(8)).reshape(1,2,4); w=torch.tensor(seq(18,5,13,6)).reshape(2,3,3)
///     convT1d = F.conv_transpose1d(x, w, stride=2, padding=1)
///     x=seq(12).reshape(2,1,3,2); y=seq(24,5,13,6).reshape(1,2,3,4)
///     einsum4 = np.einsum("abcd,adce->abce", np.broadcast_to(x,(2,1,3,2)), np.broadcast_to(y,(2,2,3,4)))
///     x=seq(12).reshape(2,3,2); y=seq(8,5,13,6).reshape(2,1,4)
///     einsum3 = np.einsum("chw,whr->chr", x, np.broadcast_to(y,(2,3,4)))
///     x=torch.tensor(seq(24)).reshape(1,2,3,4); grid=torch.tensor(seq(12,5,13,6)/1.2).reshape(1,2,3,2)
///     gs_{mode}_{padding}_{align} = F.grid_sample(x, grid, mode=mode, padding_mode=padding, align_corners=align)
@Suite("ML Program operations: vision, detection, einsum, convolution of any rank")
struct MILVisionOpsTests {
    typealias Program = ProgramPlanTests.Program

    static func seq(_ n: Int, _ a: Int = 7, _ m: Int = 11, _ o: Int = 5, _ d: Float = 4) -> [Float] {
        (0..<n).map { Float((($0 * a) % m) - o) / d }
    }

    static func close(_ a: [Float]?, _ b: [Float], _ tolerance: Float = 1e-4) -> Bool {
        guard let a, a.count == b.count else { return false }
        return zip(a, b).allSatisfy { abs($0 - $1) <= tolerance * max(1, abs($1)) }
    }

    static let conv1d: [Float] = [2.625, -1.375, -0.25, -4.25, -2.4375, -0.5, 3.0, 1.6875, -1.25]
    static let conv3d: [Float] = [1.6875, 0.375, 1.5, -1.5, 2.75, 2.6875, 0.0625, 0.5, 0.25, 0.25, 1.5625, -1.5625, 3.0, 1.375, 0.25, 3.1875, -1.875, 2.6875, 4.5, -0.125, 1.25, 2.0, -0.75, 2.0, 0.5, 0.6875, 0.0625, -0.9375, 2.875, -0.75, 0.1875, -0.75, 0.75, -2.5625, 1.8125, -0.875, 0.0, 3.75, -2.8125, -1.125, 0.3125, -2.875, 2.0625, 0.125, -1.125, -1.5, -3.25, 3.9375, 0.125, -1.0, 0.1875, 0.625, -1.9375, 1.0, -0.625, 0.0, -0.8125, -2.125, 2.0625, -1.5625, -0.1875, -0.5625, -4.1875, 1.125, -1.0, 0.375, -0.75, -3.8125, 2.75, 0.0625, 0.1875, 0.5625, -1.6875, -1.875, -0.25, -3.1875, 3.1875, -4.0, -0.875, 0.6875, -1.625, 0.75, -0.25, -2.625, 0.5, -0.375, -3.375, 1.1875, -3.1875, 1.125, 1.5625, 0.125, -0.5625, -0.5625, 0.625, 1.875, -0.5, -0.25, 0.0, 0.5, 2.1875, 0.125, 0.125, 3.5625, 0.0, -1.875, 1.4375, -2.4375, 4.0, 0.0, 0.1875, -1.4375, 0.3125, 1.375, -1.0, 0.8125, 1.75, 1.0, 0.25, -1.1875]
    static let convT3d: [Float] = [2.0, 1.0625, 0.125, 0.125, 0.3125, 1.25, -3.5625, 1.4375, 1.9375, -0.3125, -1.5, 1.375, 1.375, -0.8125, 1.875, 0.4375, -1.75, 1.0, 0.6875, -1.875, 0.125, 1.75, 1.625, -1.5, 1.8125, 1.9375, -0.5625, 1.25, 1.875, -0.125, -0.0625, 1.8125, 0.1875, -0.4375, 1.125, 1.4375, -1.0, 0.25, 1.25, 0.0, 1.4375, 1.125, 0.5625, -0.8125, 3.3125, 0.1875, -0.125, 1.875, 1.625, -0.1875, 2.125, 1.0625, -1.5, 1.625, 0.75, 2.0, -0.5, 1.5, 1.0, -1.75, -0.0625, 2.625, -1.0625, -0.125, 1.375, -1.5, 0.0625, 0.6875, 0.3125, -1.5625, 1.25, 0.3125, 1.3125, 0.375, -0.375, -0.375, 0.0, 0.9375, -3.875, 1.125, 1.3125, -0.9375, -1.75, 1.125, 1.25, -0.9375, 1.25, -0.1875, -2.1875, 0.5625, 0.0, 1.5, -0.375, -0.375, 1.3125, -0.1875, 1.5, -4.0625, -1.1875, 1.4375, 1.625, -2.0, -0.1875, 0.875, -0.4375, 1.375, 0.6875, -2.25, -1.25, 0.0, 0.5, -0.75, 0.875, 0.5625, 0.4375, -0.9375, 2.1875, -0.9375, -0.875, 1.125, 1.25, -0.5625, 1.25, 0.1875, -2.1875, 0.9375, 0.5, -1.5, -1.25, 0.75, 0.4375, 0.9375, -0.1875, 0.0625, -2.1875, 2.8125, 0.625, -0.625, -0.3125, 1.125, -0.5625, 1.625, 0.5625, -2.0, 0.625, -0.3125, -0.875, -0.875, -0.3125, 0.625, -4.1875, 0.8125, 0.6875, -1.5625, -2.0, 0.875, 1.125, -1.0625, 0.625, -0.8125, -2.625, 0.125, -0.6875, 0.8125, -0.875, -0.875, 1.0, -0.5, 1.1875, -4.375, -1.8125, 0.8125, 1.375, -2.25, -0.3125, 0.75, -1.0625, 0.75, 0.25, -2.6875, -1.5, -0.25, -0.25, -1.5, 0.3125, 0.0, 0.3125, -1.0625, 1.0625, -2.0625, -1.625, 0.375, 0.875, -0.9375, 0.375, -0.6875, -2.875, 0.25, 0.25, -1.75, -2.0, 0.0, -0.125, 0.375, -0.3125, -0.0625, -3.3125, 1.6875, -0.125, -1.375, -0.6875, 0.75, -1.4375, 0.75, -0.125, -2.6875]
    static let convT1d: [Float] = [0.625, -2.1875, -1.0625, 1.8125, 1.375, -3.125, -0.3125, -0.6875, -2.8125, 1.25, 1.9375, -1.625, -2.25, 0.3125, -1.1875, 0.625, 1.125, 0.4375, -1.375, 0.25, 0.9375]
    static let einsum4: [Float] = [2.125, -0.4375, -1.375, 1.75, -1.375, -0.4375, 2.125, -1.0, -0.875, 0.9375, 0.3125, -1.125, -1.5, -0.25, 1.0, -1.0, -1.0, -1.3125, 1.625, -1.125, -0.625, 1.5625, -0.3125, -1.375]
    static let einsum3: [Float] = [2.0, 1.0625, -1.5, 1.625, 1.0625, 2.0, -1.125, 1.4375, -0.5625, -1.1875, 0.625, -0.8125, -1.5, -0.25, 1.0, -1.0, 1.6875, 1.375, -1.375, 1.5625, 0.0625, -1.8125, 0.375, -0.6875]
    static let gs_bilinear_zeros_1: [Float] = [-0.03906247019767761, 0.71875, -0.046875, 0.09765629470348358, 0.2343750149011612, 0.7324219942092896, -0.3059896230697632, 0.2916666269302368, -0.796875, 0.2148437649011612, -0.7031250596046448, -0.20507818460464478]
    static let gs_bilinear_zeros_0: [Float] = [0.0, 0.7812501192092896, -0.020833343267440796, 0.13020841777324677, 0.10416668653488159, 0.48828160762786865, 0.0, 0.1562500298023224, -0.1458333432674408, 0.10416661202907562, -0.3125000596046448, 0.07161463797092438]
    static let gs_bilinear_border_1: [Float] = [-0.06249995529651642, 0.71875, -0.0625, 0.09765629470348358, 0.25, 0.78125, -0.4895833730697632, 0.2916666269302368, -1.0625, 0.2148437649011612, -0.75, -0.21875]
    static let gs_bilinear_border_0: [Float] = [-0.21875, 1.25, -0.16666674613952637, 0.13020841777324677, 0.25, 1.171875, -0.359375, 0.25, -1.1666667461395264, 0.10416661202907562, -0.75, 0.171875]
    static let gs_bilinear_reflection_1: [Float] = [-0.2226562201976776, 0.71875, 0.12109375, 0.09765629470348358, 0.18750005960464478, 0.7363282442092896, -0.048177093267440796, 0.2916666269302368, -0.75, 0.2148437649011612, -0.6406251192092896, -0.1562502384185791]
    static let gs_nearest_zeros_1: [Float] = [0.25, 1.25, -0.25, 0.75, 0.25, 1.25, -0.75, 0.25, -1.25, -0.25, -0.75, 0.25]
    static let gs_nearest_zeros_0: [Float] = [0.0, 1.25, 0.0, 0.75, 0.0, 0.0, 0.0, 0.25, 0.0, -0.25, 0.0, 0.0]
    static let gs_nearest_border_1: [Float] = [0.25, 1.25, -0.25, 0.75, 0.25, 1.25, -0.75, 0.25, -1.25, -0.25, -0.75, 0.25]
    static let gs_nearest_border_0: [Float] = [0.25, 1.25, -0.25, 0.75, 0.25, 1.25, -0.75, 0.25, -1.25, -0.25, -0.75, 0.25]
    static let gs_nearest_reflection_1: [Float] = [0.25, 1.25, -0.25, 0.75, 0.25, 1.25, -0.75, 0.25, -1.25, -0.25, -0.75, 0.25]
    static let grid: [Float] = [-1.25, -0.2083333283662796, 0.8333333134651184, -0.8333333134651184, 0.2083333283662796, 1.25, -0.4166666567325592, 0.625, -1.0416666269302368, 0.0, 1.0416666269302368, -0.625]


    // MARK: Convolution

    /// A 1-D convolution whose weight is computed (a program input), stride 2, padding [1, 2].
    @Test func oneDimensionalConvolutionWithComputedWeight() throws {
        var p = Program()
        p.input("x", [1, 2, 5])
        p.input("w", [3, 2, 3])
        p.constant("b", floats: [0.5, -1, 0.25], shape: [3])
        p.constant("strides", ints: [2], shape: [1])
        p.constant("padType", string: "custom", shape: [])
        p.constant("pad", ints: [1, 2], shape: [2])
        p.operation("conv", ["x": ["x"], "weight": ["w"], "bias": ["b"], "strides": ["strides"], "pad_type": ["padType"], "pad": ["pad"]], output: "y")
        let y = try p.plan(outputs: ["y"]).run(["x": MILTensor(shape: [1, 2, 5], values: Self.seq(10)),
                                                 "w": MILTensor(shape: [3, 2, 3], values: Self.seq(18, 5, 13, 6))])["y"]
        #expect(y?.shape == [1, 3, 3])
        #expect(Self.close(y?.values, Self.conv1d))
    }

    /// The same weight constant: the plan (2-D with height 1) made once.
    @Test func oneDimensionalConvolutionWithConstantWeight() throws {
        var p = Program()
        p.input("x", [1, 2, 5])
        p.constant("w", floats: Self.seq(18, 5, 13, 6), shape: [3, 2, 3])
        p.constant("b", floats: [0.5, -1, 0.25], shape: [3])
        p.constant("strides", ints: [2], shape: [1])
        p.constant("padType", string: "custom", shape: [])
        p.constant("pad", ints: [1, 2], shape: [2])
        p.operation("conv", ["x": ["x"], "weight": ["w"], "bias": ["b"], "strides": ["strides"], "pad_type": ["padType"], "pad": ["pad"]], output: "y")
        let y = try p.plan(outputs: ["y"]).run(["x": MILTensor(shape: [1, 2, 5], values: Self.seq(10))])["y"]
        #expect(y?.shape == [1, 3, 3])
        #expect(Self.close(y?.values, Self.conv1d))
    }

    /// A 2-D convolution whose weight is computed runs as with a constant one.
    @Test func twoDimensionalConvolutionWithComputedWeight() throws {
        let weights = Self.seq(4 * 2 * 9, 5, 13, 6), input = Self.seq(2 * 5 * 5)
        func run(computed: Bool) throws -> MILTensor? {
            var p = Program()
            p.input("x", [1, 2, 5, 5])
            if computed { p.input("w", [4, 2, 3, 3]) } else { p.constant("w", floats: weights, shape: [4, 2, 3, 3]) }
            p.constant("padType", string: "same", shape: [])
            p.operation("conv", ["x": ["x"], "weight": ["w"], "pad_type": ["padType"]], output: "y")
            var feeds = ["x": MILTensor(shape: [1, 2, 5, 5], values: input)]
            if computed { feeds["w"] = MILTensor(shape: [4, 2, 3, 3], values: weights) }
            return try p.plan(outputs: ["y"]).run(feeds)["y"]
        }
        let constant = try run(computed: false), computed = try run(computed: true)
        #expect(computed?.shape == [1, 4, 5, 5])
        #expect(Self.close(computed?.values, constant?.values ?? []))
    }

    /// 3-D convolution, two groups, strides [1, 2, 1], padding [0, 1, 1, 0, 1, 1].
    @Test func threeDimensionalConvolution() throws {
        var p = Program()
        p.input("x", [1, 2, 3, 4, 4])
        p.constant("w", floats: Self.seq(32, 5, 13, 6), shape: [4, 1, 2, 2, 2])
        p.constant("b", floats: [1, 0, -1, 0.5], shape: [4])
        p.constant("strides", ints: [1, 2, 1], shape: [3])
        p.constant("groups", ints: [2], shape: [])
        p.constant("padType", string: "custom", shape: [])
        p.constant("pad", ints: [0, 1, 1, 0, 1, 1], shape: [6])
        p.operation("conv", ["x": ["x"], "weight": ["w"], "bias": ["b"], "strides": ["strides"], "groups": ["groups"], "pad_type": ["padType"],
                             "pad": ["pad"]], output: "y")
        let y = try p.plan(outputs: ["y"]).run(["x": MILTensor(shape: [1, 2, 3, 4, 4], values: Self.seq(96))])["y"]
        #expect(y?.shape == [1, 4, 3, 2, 5])
        #expect(Self.close(y?.values, Self.conv3d))
    }

    @Test func threeDimensionalTransposedConvolution() throws {
        var p = Program()
        p.input("x", [1, 2, 2, 2, 3])
        p.constant("w", floats: Self.seq(48, 5, 13, 6), shape: [2, 3, 2, 2, 2])
        p.constant("b", floats: [0.5, 0, -0.5], shape: [3])
        p.constant("strides", ints: [2, 1, 2], shape: [3])
        p.operation("conv_transpose", ["x": ["x"], "weight": ["w"], "bias": ["b"], "strides": ["strides"]], output: "y")
        let y = try p.plan(outputs: ["y"]).run(["x": MILTensor(shape: [1, 2, 2, 2, 3], values: Self.seq(24))])["y"]
        #expect(y?.shape == [1, 3, 4, 3, 6])
        #expect(Self.close(y?.values, Self.convT3d))
    }

    /// 1-D transposed convolution with a computed weight, stride 2, padding [1, 1].
    @Test func oneDimensionalTransposedConvolutionWithComputedWeight() throws {
        var p = Program()
        p.input("x", [1, 2, 4])
        p.input("w", [2, 3, 3])
        p.constant("strides", ints: [2], shape: [1])
        p.constant("padType", string: "custom", shape: [])
        p.constant("pad", ints: [1, 1], shape: [2])
        p.operation("conv_transpose", ["x": ["x"], "weight": ["w"], "strides": ["strides"], "pad_type": ["padType"], "pad": ["pad"]], output: "y")
        let y = try p.plan(outputs: ["y"]).run(["x": MILTensor(shape: [1, 2, 4], values: Self.seq(8)),
                                                 "w": MILTensor(shape: [2, 3, 3], values: Self.seq(18, 5, 13, 6))])["y"]
        #expect(y?.shape == [1, 3, 7])
        #expect(Self.close(y?.values, Self.convT1d))
    }

    /// `conv_quantized`: W = W_q · scale + bias, per output channel; the same as `conv` with W.
    @Test func quantizedConvolutionDequantizesItsWeight() throws {
        // W_q = 0…7 ([2, 1, 2, 2]); scales [0.5, 2], biases [-1, 1]: W = [-1, -0.5, 0, 0.5] and [9, 11, 13, 15].
        var p = Program()
        p.input("x", [1, 1, 2, 2])
        p.constant("w", floats: (0..<8).map(Float.init), shape: [2, 1, 2, 2])
        p.constant("scale", floats: [0.5, 2], shape: [2])
        p.constant("qbias", floats: [-1, 1], shape: [2])
        p.constant("kind", string: "linear", shape: [])
        p.operation("conv_quantized", ["x": ["x"], "weight": ["w"], "quant_scale": ["scale"], "quant_bias": ["qbias"], "quantization_type": ["kind"]],
                    output: "y")
        // x = [1, 2, 3, 4]: -1 − 1 + 0 + 2 = 0; 9 + 22 + 39 + 60 = 130.
        let y = try p.plan(outputs: ["y"]).run(["x": MILTensor(shape: [1, 1, 2, 2], values: [1, 2, 3, 4])])["y"]
        #expect(y?.shape == [1, 2, 1, 1])
        #expect(y?.values == [0, 130])
    }

    // MARK: einsum

    @Test func einsumOfRankFourBroadcastsTheBatch() throws {
        var p = Program()
        p.input("x", [2, 1, 3, 2])
        p.input("y", [1, 2, 3, 4])
        p.constant("equation", string: "nchw,nwhu->nchu", shape: [])
        p.operation("einsum", ["values": ["x", "y"], "equation": ["equation"]], output: "z")
        let z = try p.plan(outputs: ["z"]).run(["x": MILTensor(shape: [2, 1, 3, 2], values: Self.seq(12)),
                                                 "y": MILTensor(shape: [1, 2, 3, 4], values: Self.seq(24, 5, 13, 6))])["z"]
        #expect(z?.shape == [2, 1, 3, 4])
        #expect(Self.close(z?.values, Self.einsum4))
    }

    @Test func einsumOfRankThreeBroadcastsH() throws {
        var p = Program()
        p.input("x", [2, 3, 2])
        p.input("y", [2, 1, 4])
        p.constant("equation", string: "vnm,mno->vno", shape: [])
        p.operation("einsum", ["values": ["x", "y"], "equation": ["equation"]], output: "z")
        let z = try p.plan(outputs: ["z"]).run(["x": MILTensor(shape: [2, 3, 2], values: Self.seq(12)),
                                                 "y": MILTensor(shape: [2, 1, 4], values: Self.seq(8, 5, 13, 6))])["z"]
        #expect(z?.shape == [2, 3, 4])
        #expect(Self.close(z?.values, Self.einsum3))
    }

    @Test func einsumRefusesOtherEquations() {
        var p = Program()
        p.input("x", [2, 3])
        p.input("y", [3, 4])
        p.constant("equation", string: "ij,jk->ik", shape: [])
        p.operation("einsum", ["values": ["x", "y"], "equation": ["equation"]], output: "z")
        #expect(throws: EngineError.self) { try p.plan(outputs: ["z"]) }
    }

    // MARK: resample, affine, crop_resize

    static func resample(_ mode: String, _ padding: String, align: Bool, coordinates: String = "normalized_minus_one_to_one") throws -> MILTensor? {
        var p = Program()
        p.input("x", [1, 2, 3, 4])
        p.input("grid", [1, 2, 3, 2])
        p.constant("mode", string: mode, shape: [])
        p.constant("padding", string: padding, shape: [])
        p.constant("value", floats: [0], shape: [])
        p.constant("coordinates", string: coordinates, shape: [])
        p.constant("align", ints: [align ? 1 : 0], shape: [])
        p.operation("resample", ["x": ["x"], "coordinates": ["grid"], "sampling_mode": ["mode"], "padding_mode": ["padding"], "padding_value": ["value"],
                                 "coordinates_mode": ["coordinates"], "align_corners": ["align"]], output: "y")
        return try p.plan(outputs: ["y"]).run(["x": MILTensor(shape: [1, 2, 3, 4], values: seq(24)), "grid": MILTensor(shape: [1, 2, 3, 2], values: grid)])["y"]
    }

    /// `resample` is PyTorch's `grid_sample` (zeros padding being constant 0).
    @Test(arguments: [
        ("bilinear", "constant", true, gs_bilinear_zeros_1), ("bilinear", "constant", false, gs_bilinear_zeros_0),
        ("bilinear", "border", true, gs_bilinear_border_1), ("bilinear", "border", false, gs_bilinear_border_0),
        ("bilinear", "reflection", true, gs_bilinear_reflection_1),
        ("nearest", "constant", true, gs_nearest_zeros_1), ("nearest", "constant", false, gs_nearest_zeros_0),
        ("nearest", "border", true, gs_nearest_border_1), ("nearest", "border", false, gs_nearest_border_0),
        ("nearest", "reflection", true, gs_nearest_reflection_1),
    ] as [(String, String, Bool, [Float])])
    func resampleIsGridSample(mode: String, padding: String, align: Bool, expected: [Float]) throws {
        let y = try Self.resample(mode, padding, align: align)
        #expect(y?.shape == [1, 2, 2, 3])
        #expect(Self.close(y?.values, expected), "\(y?.values ?? [])")
    }

    /// coremltools' own `resample` test (iOS 15), values worked by hand there: x = [[11, 22], [33, 44]].
    @Test func resampleSymmetricPaddingAndUnitCoordinates() throws {
        var p = Program()
        p.input("x", [1, 1, 2, 2])
        p.input("grid", [1, 2, 2, 2])
        p.constant("nearest", string: "nearest", shape: [])
        p.constant("symmetric", string: "symmetric", shape: [])
        p.constant("value", floats: [-1], shape: [])
        p.constant("unit", string: "normalized_zero_to_one", shape: [])
        p.constant("no", ints: [0], shape: [])
        p.operation("resample", ["x": ["x"], "coordinates": ["grid"], "sampling_mode": ["nearest"], "padding_mode": ["symmetric"],
                                 "padding_value": ["value"], "coordinates_mode": ["unit"], "align_corners": ["no"]], output: "y")
        let y = try p.plan(outputs: ["y"]).run(["x": MILTensor(shape: [1, 1, 2, 2], values: [11, 22, 33, 44]),
                                                 "grid": MILTensor(shape: [1, 2, 2, 2], values: [-1, -2, -3.7, -1, 0, 0, 3.5, 1.2])])["y"]
        #expect(y?.values == [22, 33, 11, 33])
    }

    /// coremltools' `affine` test: x = [[11, 22], [33, 44]], matrix [-1, -2, -3.7, -1, 3.5, 1.2]. Output
    /// (0, 0) at (-1, -1) reads (-0.7, -1.3), pixel (0.15, -0.15): 0.85 · (0.85 · 11 + 0.15 · 22) = 10.7525.
    @Test func affineMapsTheOutputGrid() throws {
        var p = Program()
        p.input("x", [1, 1, 2, 2])
        p.input("m", [1, 6])
        p.constant("h", ints: [3], shape: [])
        p.constant("w", ints: [3], shape: [])
        p.constant("mode", string: "bilinear", shape: [])
        p.constant("padding", string: "constant", shape: [])
        p.constant("value", floats: [0], shape: [])
        p.constant("coordinates", string: "normalized_minus_one_to_one", shape: [])
        p.constant("align", ints: [1], shape: [])
        p.operation("affine", ["x": ["x"], "transform_matrix": ["m"], "output_height": ["h"], "output_width": ["w"], "sampling_mode": ["mode"],
                               "padding_mode": ["padding"], "padding_value": ["value"], "coordinates_mode": ["coordinates"], "align_corners": ["align"]],
                    output: "y")
        let y = try p.plan(outputs: ["y"]).run(["x": MILTensor(shape: [1, 1, 2, 2], values: [11, 22, 33, 44]),
                                                 "m": MILTensor(shape: [1, 6], values: [-1, -2, -3.7, -1, 3.5, 1.2])])["y"]
        #expect(y?.shape == [1, 1, 3, 3])
        #expect(Self.close(y?.values, [10.752501, 2.5025, 0, 1.9799997, 0, 0, 0, 0, 0]))
    }

    /// coremltools' iOS 16 `crop_resize` test: x = 1…16 (4 × 4), normalized boxes with an image index,
    /// ALIGN_CORNERS, samples outside the image are `pad_value`. Box 0 rows 0.1·3 = 0.3 and 3.9
    /// (outside), columns 0.9 and 3: 4 · 0.3 + 0.9 + 1 = 3.1, 1.2 + 3 + 1 = 5.2.
    @Test func cropResizeWithPadValue() throws {
        var p = Program()
        p.input("x", [1, 1, 4, 4])
        p.constant("roi", floats: [0, 0.1, 0.3, 1.3, 1, 0, 0.5, 1.8, 1.0, 0.3, 0, 0.0, 0.4, 0.6, 0.7], shape: [3, 1, 5, 1, 1])
        p.constant("two", ints: [2], shape: [])
        p.constant("yes", ints: [1], shape: [])
        p.constant("boxMode", string: "CORNERS_HEIGHT_FIRST", shape: [])
        p.constant("mode", string: "ALIGN_CORNERS", shape: [])
        p.constant("pad", floats: [10], shape: [])
        p.operation("crop_resize", ["x": ["x"], "roi": ["roi"], "target_height": ["two"], "target_width": ["two"], "normalized_coordinates": ["yes"],
                                    "box_coordinate_mode": ["boxMode"], "sampling_mode": ["mode"], "pad_value": ["pad"]], output: "y")
        let y = try p.plan(outputs: ["y"]).run(["x": MILTensor(shape: [1, 1, 4, 4], values: (1...16).map(Float.init))])["y"]
        #expect(y?.shape == [3, 1, 1, 2, 2])
        #expect(Self.close(y?.values, [3.1, 5.2, 10, 10, 10, 7.9, 10, 13.9, 2.2, 3.1, 9.4, 10.3]))
    }

    /// iOS 17's form (boxes and box_indices, no B axis) and a centre-size box, width first: centre
    /// (w 1.5, h 1.5), size 1 × 1 is rows and columns 1 and 2: 6, 7, 10, 11.
    @Test func cropResizeOfIOS17WithCenterSizeBoxes() throws {
        var p = Program()
        p.input("x", [2, 1, 4, 4])
        p.constant("boxes", floats: [1.5, 1.5, 1, 1], shape: [1, 4])
        p.constant("indices", ints: [1], shape: [1])
        p.constant("two", ints: [2], shape: [])
        p.constant("boxMode", string: "CENTER_SIZE_WIDTH_FIRST", shape: [])
        p.constant("mode", string: "STRICT_ALIGN_CORNERS", shape: [])
        p.operation("crop_resize", ["x": ["x"], "boxes": ["boxes"], "box_indices": ["indices"], "target_height": ["two"], "target_width": ["two"],
                                    "box_coordinate_mode": ["boxMode"], "sampling_mode": ["mode"]], output: "y")
        let y = try p.plan(outputs: ["y"]).run(["x": MILTensor(shape: [2, 1, 4, 4], values: (1...32).map(Float.init))])["y"]
        #expect(y?.shape == [1, 1, 2, 2])
        #expect(y?.values == [22, 23, 26, 27])
    }

    // MARK: non_maximum_suppression, classify

    /// Suppression stops once it keeps the most boxes asked for (its work is candidates × kept):
    /// of five disjoint boxes, confidences 0.1 … 0.5, the two most confident, in that order.
    @Test func suppressionStopsAtTheMostBoxesWanted() {
        let confidences: [Double] = [0.1, 0.5, 0.3, 0.4, 0.2]
        var coordinates: [Double] = []
        for box in 0..<5 { coordinates += [Double(box * 10), 0, Double(box * 10 + 1), 1] }
        let kept = confidences.withUnsafeBufferPointer { c in
            coordinates.withUnsafeBufferPointer { b in
                BoxSuppression.pickTop(confidences: c.baseAddress!, classCount: 1, coordinates: b.baseAddress!, boxCount: 5,
                                       iouThreshold: 0.5, confidenceThreshold: 0, perClass: false, maxCount: 2)
            }
        }
        #expect(kept == [1, 3])
    }

    /// coremltools' NMS smoke test: boxes (centre x, centre y, w, h) [0,0,0,0], [1,1,1,1], [2,2,2,2],
    /// [3,3,3,3], scores -3.5, 9.4, 2.3, 0.7; IoU threshold 0.2, score threshold 0.4. Box 1, then box 2
    /// (disjoint from 1: [0.5, 1.5] against [1, 3]? they share [1, 1.5]², 0.25 / (1 + 4 − 0.25) = 0.053);
    /// box 3 ([1.5, 4.5]²) shares 1.5² = 2.25 with box 2: 2.25 / (4 + 9 − 2.25) = 0.21 > 0.2, dropped.
    @Test(arguments: [false, true])
    func nonMaximumSuppression(iOS17: Bool) throws {
        var p = Program()
        let boxes: [Float] = [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3], scores: [Float] = [-3.5, 9.4, 2.3, 0.7]
        p.input("boxes", [1, 4, 4])
        p.input("scores", iOS17 ? [1, 1, 4] : [1, 4, 1])
        p.constant("iou", floats: [0.2], shape: [])
        p.constant("score", floats: [0.4], shape: [])
        p.constant("max", ints: [3], shape: [])
        var inputs = ["boxes": ["boxes"], "scores": ["scores"], "iou_threshold": ["iou"], "max_boxes": ["max"]]
        if !iOS17 { inputs["score_threshold"] = ["score"] }
        p.operation("non_maximum_suppression", inputs, outputs: iOS17 ? ["b", "s", "i"] : ["b", "s", "i", "n"])
        // iOS 17 puts the box axis last (a row per coordinate), and has no score threshold: box 0
        // (no area, IoU 0 with every box) is kept third.
        let columns: [Float] = [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3]
        let out = try p.plan(outputs: iOS17 ? ["b", "s", "i"] : ["b", "s", "i", "n"])
            .run(["boxes": MILTensor(shape: [1, 4, 4], values: iOS17 ? columns : boxes),
                  "scores": MILTensor(shape: iOS17 ? [1, 1, 4] : [1, 4, 1], values: scores)])
        #expect(out["b"]?.shape == (iOS17 ? [1, 4, 3] : [1, 3, 4]))
        #expect(out["b"]?.values == (iOS17 ? [1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0] : [1, 1, 1, 1, 2, 2, 2, 2, 0, 0, 0, 0]))
        #expect(out["s"]?.values == (iOS17 ? [9.4, 2.3, -3.5] : [9.4, 2.3, 0]))
        #expect(out["i"]?.values == (iOS17 ? [1, 2, 0] : [1, 2, -1]))
        if !iOS17 { #expect(out["n"]?.values == [2]) }
    }

    /// No box above the score threshold: the highest-scoring box is kept all the same (coremltools' reference).
    @Test func nonMaximumSuppressionKeepsTheBestBoxWhenNoneQualifies() throws {
        var p = Program()
        p.input("boxes", [1, 2, 4])
        p.input("scores", [1, 2, 2])
        p.constant("iou", floats: [0.5], shape: [])
        p.constant("score", floats: [100], shape: [])
        p.constant("max", ints: [2], shape: [])
        p.operation("non_maximum_suppression", ["boxes": ["boxes"], "scores": ["scores"], "iou_threshold": ["iou"], "score_threshold": ["score"],
                                                "max_boxes": ["max"]], outputs: ["b", "s", "i", "n"])
        let out = try p.plan(outputs: ["b", "s", "i", "n"]).run(["boxes": MILTensor(shape: [1, 2, 4], values: [0, 0, 1, 1, 5, 5, 1, 1]),
                                                                  "scores": MILTensor(shape: [1, 2, 2], values: [0.1, 0.2, 0.3, 0.05])])
        #expect(out["i"]?.values == [1, -1])
        #expect(out["s"]?.values == [0.3, 0.05, 0, 0])
        #expect(out["n"]?.values == [1])
    }

    @Test func classifyGivesTheWinnerAndTheProbabilities() throws {
        var p = Program()
        p.input("p", [1, 3])
        p.operation("classify", ["probabilities": ["p"]], outputs: ["label", "probabilities"])
        let out = try p.plan(outputs: ["label", "probabilities"]).run(["p": MILTensor(shape: [1, 3], values: [0.2, 0.5, 0.3])])
        #expect(out["label"]?.values == [1])
        #expect(out["probabilities"]?.values == [0.2, 0.5, 0.3])
    }
}
