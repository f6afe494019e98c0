import Testing
@testable import _OpenCoreMLEngine

/// A constant-0 `pad` of H and W read only by a `conv`, a counting `avg_pool` or a `max_pool` of a
/// `relu`'s output folds into that window: the same values as the definition (the padded tensor
/// made explicitly, then the window over it, computed here by loops), and no `pad` step. A pad with
/// a second reader, a reflecting pad, a non-zero constant, an average that excludes the padding or
/// a max over values that may be negative stays a step of its own, with the definition's values too.
@Suite("ML Program pad folding")
struct ProgramPlanPadFoldingTests {
    typealias Program = ProgramPlanTests.Program
    typealias Fusion = ProgramPlanFusionTests

    static let (n, c, h, w) = (2, 3, 5, 6)
    static let x = MILTensor(shape: [n, c, h, w], values: Fusion.values(n * c * h * w, seed: 11))

    /// `x` padded explicitly by [top, bottom, left, right] with `mode` ("constant" with `fill`, "reflect").
    static func padded(_ x: MILTensor, _ pad: [Int], mode: String = "constant", fill: Float = 0) -> MILTensor {
        let (n, c, h, w) = (x.shape[0], x.shape[1], x.shape[2], x.shape[3])
        let (oh, ow) = (h + pad[0] + pad[1], w + pad[2] + pad[3])
        var values: [Float] = []
        for plane in 0..<(n * c) {
            for i in 0..<oh {
                for j in 0..<ow {
                    var (r, s) = (i - pad[0], j - pad[2])
                    if mode == "reflect" {
                        r = r < 0 ? -r : r >= h ? 2 * (h - 1) - r : r
                        s = s < 0 ? -s : s >= w ? 2 * (w - 1) - s : s
                    }
                    values.append(r >= 0 && r < h && s >= 0 && s < w ? x.values[(plane * h + r) * w + s] : fill)
                }
            }
        }
        return MILTensor(shape: [n, c, oh, ow], values: values)
    }

    /// The definition of a valid (unpadded) window over `x`: a convolution with `weights`
    /// (out × c × k × k) and `bias`, or a pooling ("max", "avg" dividing by k·k).
    static func window(_ x: MILTensor, k: Int, stride: Int, pool: String? = nil, weights: [Float] = [], bias: [Float] = []) -> [Float] {
        let (n, c, h, w) = (x.shape[0], x.shape[1], x.shape[2], x.shape[3])
        let (oh, ow) = ((h - k) / stride + 1, (w - k) / stride + 1)
        let outChannels = pool == nil ? bias.count : c
        var result: [Float] = []
        for image in 0..<n {
            for o in 0..<outChannels {
                for i in 0..<oh {
                    for j in 0..<ow {
                        var value: Double = pool == "max" ? -.infinity : pool == nil ? Double(bias[o]) : 0
                        for ch in (pool == nil ? 0..<c : o..<(o + 1)) {
                            for a in 0..<k {
                                for b in 0..<k {
                                    let v = Double(x.values[((image * c + ch) * h + i * stride + a) * w + j * stride + b])
                                    switch pool {
                                    case "max"?: value = max(value, v)
                                    case "avg"?: value += v / Double(k * k)
                                    default: value += v * Double(weights[((o * c + ch) * k + a) * k + b])
                                    }
                                }
                            }
                        }
                        result.append(Float(value))
                    }
                }
            }
        }
        return result
    }

    /// `x` through `relu` (when `afterReLU`), a `pad` of `pad` and the window `op` (`conv`, `max_pool`
    /// or `avg_pool`, 3×3, stride 2, valid); with `padAlsoOutput` the pad's output is also returned.
    static func run(_ op: String, pad: [Int32], mode: String = "constant", fill: Float = 0, afterReLU: Bool = false,
                    excludePadding: Bool = false, padAlsoOutput: Bool = false) throws -> (y: MILTensor, types: [String]) {
        var p = Program()
        p.input("x", [n, c, h, w])
        var source = "x"
        if afterReLU {
            p.operation("relu", ["x": ["x"]], output: "r")
            source = "r"
        }
        p.constant("amounts", ints: pad, shape: [pad.count])
        p.constant("mode", string: mode, shape: [])
        p.constant("fill", floats: [fill], shape: [])
        p.operation("pad", ["x": [source], "pad": ["amounts"], "mode": ["mode"], "constant_val": ["fill"]], output: "padded")
        p.constant("strides", ints: [2, 2], shape: [2])
        if op == "conv" {
            p.constant("w", floats: Fusion.values(4 * c * 9, seed: 3), shape: [4, c, 3, 3])
            p.constant("b", floats: Fusion.values(4, seed: 4), shape: [4])
            p.operation("conv", ["x": ["padded"], "weight": ["w"], "bias": ["b"], "strides": ["strides"]], output: "y")
        } else {
            p.constant("kernel", ints: [3, 3], shape: [2])
            p.constant("exclude", ints: [excludePadding ? 1 : 0], shape: [])
            var inputs = ["x": ["padded"], "kernel_sizes": ["kernel"], "strides": ["strides"]]
            if op == "avg_pool" { inputs["exclude_padding_from_average"] = ["exclude"] }
            p.operation(op, inputs, output: "y")
        }
        let plan = try p.plan(outputs: padAlsoOutput ? ["y", "padded"] : ["y"])
        let profile = try plan.profile(["x": x], runs: 1, clock: .wall)
        let y = try #require(try plan.run(["x": x])["y"])
        return (y, profile.steps.map(\.type))
    }

    /// What `run` should give: the padded input made explicitly, then the window over it.
    static func expected(_ op: String, pad: [Int32], mode: String = "constant", fill: Float = 0, afterReLU: Bool = false) -> [Float] {
        var input = x
        if afterReLU { input = MILTensor(shape: x.shape, values: x.values.map { max($0, 0) }) }
        let explicit = padded(input, pad.map(Int.init), mode: mode, fill: fill)
        switch op {
        case "conv": return window(explicit, k: 3, stride: 2, weights: Fusion.values(4 * c * 9, seed: 3), bias: Fusion.values(4, seed: 4))
        case "max_pool": return window(explicit, k: 3, stride: 2, pool: "max")
        default: return window(explicit, k: 3, stride: 2, pool: "avg")
        }
    }

    static func worst(_ a: [Float], _ b: [Float]) -> Float {
        a.count == b.count ? zip(a, b).map { abs($0 - $1) }.max() ?? 0 : .infinity
    }

    @Test(arguments: [
        ("conv", false), ("avg_pool", false), ("max_pool", true),
    ])
    func foldsIntoTheWindowWithTheDefinitionsValues(op: String, afterReLU: Bool) throws {
        let pad: [Int32] = [1, 2, 0, 1]
        let folded = try Self.run(op, pad: pad, afterReLU: afterReLU)
        #expect(!folded.types.contains("pad"), "\(folded.types)")
        let unfolded = try Self.run(op, pad: pad, afterReLU: afterReLU, padAlsoOutput: true)
        #expect(unfolded.types.contains("pad"), "a second reader keeps the pad: \(unfolded.types)")
        let expected = Self.expected(op, pad: pad, afterReLU: afterReLU)
        #expect(Self.worst(folded.y.values, expected) <= 1e-5)
        #expect(Self.worst(unfolded.y.values, expected) <= 1e-5)
        #expect(folded.y.shape == unfolded.y.shape)
    }

    /// Pads of all four axes (N and C by 0) fold as the H and W amounts.
    @Test func eightAmountsWithZerosForNAndCFold() throws {
        let folded = try Self.run("conv", pad: [0, 0, 0, 0, 2, 1, 1, 1])
        #expect(!folded.types.contains("pad"))
        #expect(Self.worst(folded.y.values, Self.expected("conv", pad: [2, 1, 1, 1])) <= 1e-5)
    }

    @Test func padsWhoseWindowWouldDifferStaySteps() throws {
        let pad: [Int32] = [1, 1, 2, 1]
        let cases: [(String, (y: MILTensor, types: [String]), [Float])] = [
            ("reflect", try Self.run("conv", pad: pad, mode: "reflect"), Self.expected("conv", pad: pad, mode: "reflect")),
            ("a constant of 0.5", try Self.run("conv", pad: pad, fill: 0.5), Self.expected("conv", pad: pad, fill: 0.5)),
            ("an average without the padding", try Self.run("avg_pool", pad: pad, excludePadding: true), Self.expected("avg_pool", pad: pad)),
            ("a max of values below 0", try Self.run("max_pool", pad: pad), Self.expected("max_pool", pad: pad)),
        ]
        #expect(Self.x.values.contains { $0 < -0.5 }, "some inputs a padded 0 beats")
        for (what, result, expected) in cases {
            #expect(result.types.contains("pad"), "\(what): \(result.types)")
            #expect(Self.worst(result.y.values, expected) <= 1e-5, "\(what)")
        }
    }
}
