import Testing
import _OpenCoreMLTestSupport
import _OpenCoreMLKernels
@testable import _OpenCoreMLEngine

/// A `conv` that Winograd runs (3×3, stride 1, one group, 16 channels or more each way) gives the
/// convolution's definition, padded any way, two images at once, with its bias and a fused
/// `relu`; the others stay on the im2col product.
@Suite("ML Program Winograd convolution")
struct ProgramPlanWinogradTests {
    typealias Program = ProgramPlanTests.Program
    typealias Fusion = ProgramPlanFusionTests

    @Test func onlyThreeByThreeStrideOneSingleGroupWideConvolutionsQualify() {
        func qualifies(_ shape: [Int], groups: Int = 1, strides: [Int] = [1, 1], dilations: [Int] = [1, 1]) -> Bool {
            WinogradConvolution.applies(kernel: (shape[2], shape[3]), groups: groups, stride: (strides[0], strides[1]),
                                        dilation: (dilations[0], dilations[1]), inChannels: shape[1], outChannels: shape[0])
        }
        #expect(qualifies([16, 16, 3, 3]))
        #expect(!qualifies([16, 16, 3, 3], strides: [2, 2]))
        #expect(!qualifies([16, 16, 3, 3], dilations: [2, 2]))
        #expect(!qualifies([32, 16, 3, 3], groups: 2))
        #expect(!qualifies([16, 3, 3, 3]))  // a stem's 3 input channels
        #expect(!qualifies([16, 16, 5, 5]))
    }

    @Test(arguments: [("same", [0, 0, 0, 0]), ("valid", [0, 0, 0, 0]), ("custom", [2, 0, 1, 3])])
    func agreesWithTheDefinition(padType: String, pad: [Int]) throws {
        let (n, c, o, h, w) = (2, 16, 17, 9, 11)
        var p = Program()
        p.input("x", [n, c, h, w])
        let weights = Fusion.values(o * c * 9, seed: 7), bias = Fusion.values(o, seed: 8)
        p.constant("w", floats: weights, shape: [o, c, 3, 3])
        p.constant("b", floats: bias, shape: [o])
        p.constant("strides", ints: [1, 1], shape: [2])
        p.constant("dilations", ints: [1, 1], shape: [2])
        p.constant("groups", ints: [1], shape: [])
        p.constant("pad_type", string: padType, shape: [])
        p.constant("pad", ints: pad.map(Int32.init), shape: [4])
        p.operation("conv", ["x": ["x"], "weight": ["w"], "bias": ["b"], "strides": ["strides"], "dilations": ["dilations"],
                             "groups": ["groups"], "pad_type": ["pad_type"], "pad": ["pad"]], output: "convolved")
        p.operation("relu", ["x": ["convolved"]], output: "y")
        let x = MILTensor(shape: [n, c, h, w], values: Fusion.values(n * c * h * w, seed: 9))
        let result = try p.plan(outputs: ["y", "convolved"]).run(["x": x])
        let fused = try #require(try p.plan(outputs: ["y"]).run(["x": x])["y"])
        let convolved = try #require(result["convolved"])
        let (top, left) = padType == "same" ? (1, 1) : (pad[0], pad[2])
        let outH = padType == "same" ? h : h + pad[0] + pad[1] - 2, outW = padType == "same" ? w : w + pad[2] + pad[3] - 2
        #expect(convolved.shape == [n, o, outH, outW])
        var worst = 0.0
        for image in 0..<n {
            for k in 0..<o {
                for oy in 0..<outH {
                    for ox in 0..<outW {
                        var sum = Double(bias[k])
                        for ch in 0..<c {
                            for i in 0..<3 {
                                for j in 0..<3 {
                                    let iy = oy + i - top, ix = ox + j - left
                                    guard iy >= 0, iy < h, ix >= 0, ix < w else { continue }
                                    sum += Double(x.values[((image * c + ch) * h + iy) * w + ix]) * Double(weights[((k * c + ch) * 3 + i) * 3 + j])
                                }
                            }
                        }
                        let index = ((image * o + k) * outH + oy) * outW + ox
                        worst = max(worst, abs(Double(convolved.values[index]) - sum), abs(Double(fused.values[index]) - max(sum, 0)))
                    }
                }
            }
        }
        #expect(worst <= 1e-4, "off by \(worst)")
    }

    /// A convolution whose unfolded columns outgrow the cache runs in bands of output rows, one
    /// band per thread at a time: the same as the definition (a 7×7 stem over 64×64).
    @Test func aLargeConvolutionInBandsAgreesWithTheDefinition() throws {
        try withKernelSettingsHeld {
            let (c, o, size, k) = (3, 5, 64, 7)
            // Two threads, so that the convolution goes in bands on any machine.
            ocm_set_num_threads(2)
            defer { ocm_set_num_threads(0) }
            #expect(Conv2DPlan.bandRows(rows: c * k * k, outH: size, outW: size) < size, "bands, on two threads")
            var p = Program()
            p.input("x", [1, c, size, size])
            let weights = Fusion.values(o * c * k * k, seed: 3), bias = Fusion.values(o, seed: 4)
            p.constant("w", floats: weights, shape: [o, c, k, k])
            p.constant("b", floats: bias, shape: [o])
            p.constant("pad_type", string: "same", shape: [])
            p.operation("conv", ["x": ["x"], "weight": ["w"], "bias": ["b"], "pad_type": ["pad_type"]], output: "y")
            let x = MILTensor(shape: [1, c, size, size], values: Fusion.values(c * size * size, seed: 5))
            let y = try #require(try p.plan(outputs: ["y"]).run(["x": x])["y"])
            var worst = 0.0
            for k0 in 0..<o {
                for oy in 0..<size {
                    for ox in 0..<size {
                        var sum = Double(bias[k0])
                        for ch in 0..<c {
                            for i in 0..<k {
                                for j in 0..<k {
                                    let iy = oy + i - 3, ix = ox + j - 3
                                    guard iy >= 0, iy < size, ix >= 0, ix < size else { continue }
                                    sum += Double(x.values[(ch * size + iy) * size + ix]) * Double(weights[((k0 * c + ch) * k + i) * k + j])
                                }
                            }
                        }
                        worst = max(worst, abs(Double(y.values[(k0 * size + oy) * size + ox]) - sum))
                    }
                }
            }
            #expect(worst <= 1e-4, "off by \(worst)")
        }
    }
}
