import Testing
@testable import _OpenCoreMLEngine

/// `conv_transpose` on hand-built programs against its definition (every input position feeds output
/// i·stride + k·dilation − pad_before), with custom and `same` padding, an `output_shape` larger than
/// the taps reach, groups and dilation; and hostile parameters.
@Suite("ML Program operations: conv_transpose")
struct ProgramPlanConvolutionTransposeTests {
    typealias Program = ProgramPlanTests.Program

    struct Case: Sendable, CustomTestStringConvertible {
        var groups = 1, stride = [2, 2], dilation = [1, 1], kernel = [3, 2]
        var padType = "valid", pad = [0, 0, 0, 0]
        var outputShape: [Int]?
        var expected: (Int, Int)
        var testDescription: String { "\(padType) \(pad) stride \(stride) dilation \(dilation) groups \(groups) output \(outputShape ?? [])" }
    }

    static let cases = [
        Case(expected: (9, 8)),
        Case(padType: "custom", pad: [1, 0, 1, 2], expected: (8, 5)),
        Case(stride: [2, 1], padType: "same", expected: (8, 4)),
        Case(groups: 2, dilation: [2, 1], padType: "custom", pad: [0, 1, 0, 0], outputShape: [1, 4, 13, 9], expected: (13, 9)),
    ]

    /// y[o][oy][ox] = bias[o] + Σ w[ci][o mod C_out/g][ky][kx]·x[ci][iy][ix] over the inputs whose tap lands there.
    static func reference(_ x: [Float], _ w: [Float], _ bias: [Float], _ c: Case, inChannels: Int, outPerGroup: Int, h: Int, w width: Int,
                          before: (Int, Int), size: (Int, Int)) -> [Double] {
        let outChannels = outPerGroup * c.groups, perGroup = inChannels / c.groups
        var y = (0..<(outChannels * size.0 * size.1)).map { Double(bias[$0 / (size.0 * size.1)]) }
        for ci in 0..<inChannels {
            let group = ci / perGroup
            for o in 0..<outPerGroup {
                for ky in 0..<c.kernel[0] {
                    for kx in 0..<c.kernel[1] {
                        for iy in 0..<h {
                            for ix in 0..<width {
                                let oy = iy * c.stride[0] + ky * c.dilation[0] - before.0, ox = ix * c.stride[1] + kx * c.dilation[1] - before.1
                                guard oy >= 0, oy < size.0, ox >= 0, ox < size.1 else { continue }
                                let weight = w[((ci * outPerGroup + o) * c.kernel[0] + ky) * c.kernel[1] + kx]
                                y[((group * outPerGroup + o) * size.0 + oy) * size.1 + ox] += Double(weight) * Double(x[(ci * h + iy) * width + ix])
                            }
                        }
                    }
                }
            }
        }
        return y
    }

    @Test(arguments: cases)
    func followsTheDefinition(_ c: Case) throws {
        let (inChannels, outPerGroup, h, w) = (4, 4 / c.groups, 4, 4)
        var p = Program()
        p.input("x", [1, inChannels, h, w])
        let weights = (0..<(inChannels * outPerGroup * c.kernel[0] * c.kernel[1])).map { Float(($0 * 7) % 11) / 11 - 0.4 }
        let bias = (0..<(outPerGroup * c.groups)).map { Float($0) / 10 }
        p.constant("w", floats: weights, shape: [inChannels, outPerGroup] + c.kernel)
        p.constant("b", floats: bias, shape: [outPerGroup * c.groups])
        p.constant("strides", ints: c.stride.map(Int32.init), shape: [2])
        p.constant("dilations", ints: c.dilation.map(Int32.init), shape: [2])
        p.constant("groups", ints: [Int32(c.groups)], shape: [])
        p.constant("pad", ints: c.pad.map(Int32.init), shape: [4])
        p.constant("pad_type", string: c.padType, shape: [])
        var inputs = ["x": ["x"], "weight": ["w"], "bias": ["b"], "strides": ["strides"], "dilations": ["dilations"], "groups": ["groups"],
                      "pad": ["pad"], "pad_type": ["pad_type"]]
        if let shape = c.outputShape {
            p.constant("output_shape", ints: shape.map(Int32.init), shape: [4])
            inputs["output_shape"] = ["output_shape"]
        }
        p.operation("conv_transpose", inputs, output: "y")
        let x = (0..<(inChannels * h * w)).map { Float(($0 * 5) % 9) / 9 - 0.5 }
        let y = try #require(try p.plan(outputs: ["y"]).run(["x": MILTensor(shape: [1, inChannels, h, w], values: x)])["y"])
        #expect(y.shape == [1, outPerGroup * c.groups, c.expected.0, c.expected.1])
        let full = ((h - 1) * c.stride[0] + (c.kernel[0] - 1) * c.dilation[0] + 1, (w - 1) * c.stride[1] + (c.kernel[1] - 1) * c.dilation[1] + 1)
        let before = c.padType == "custom" ? (c.pad[0], c.pad[2])
            : c.padType == "same" ? ((full.0 - c.expected.0) / 2, (full.1 - c.expected.1) / 2) : (0, 0)
        let expected = Self.reference(x, weights, bias, c, inChannels: inChannels, outPerGroup: outPerGroup, h: h, w: w,
                                      before: before, size: c.expected)
        #expect(zip(y.values, expected).allSatisfy { abs(Double($0) - $1) < 1e-5 }, "\(c)")
    }

    @Test func hostileParametersAreErrors() throws {
        func failure(weightShape: [Int], ints: [String: [Int32]] = [:], strings: [String: String] = [:]) -> String? {
            var p = Program()
            p.input("x", [1, 2, 3, 3])
            p.constant("w", floats: [Float](repeating: 0.5, count: weightShape.reduce(1, *)), shape: weightShape)
            var inputs = ["x": ["x"], "weight": ["w"]]
            for (name, values) in ints {
                p.constant(name, ints: values, shape: [values.count])
                inputs[name] = [name]
            }
            for (name, value) in strings {
                p.constant(name, string: value, shape: [])
                inputs[name] = [name]
            }
            p.operation("conv_transpose", inputs, output: "y")
            do {
                _ = try p.plan(outputs: ["y"]).run(["x": MILTensor(shape: [1, 2, 3, 3], values: [Float](repeating: 1, count: 18))])
                return nil
            } catch let error as EngineError {
                return error.description
            } catch {
                return "unexpected \(error)"
            }
        }
        #expect(failure(weightShape: [2, 1, 2, 2], ints: ["strides": [0, 1]])?.contains("strides and dilations") == true)
        #expect(failure(weightShape: [2, 1, 2, 2], ints: ["groups": [3]])?.contains("does not divide") == true)
        #expect(failure(weightShape: [2, 1, 2, 2], ints: ["pad": [9, 9, 0, 0]], strings: ["pad_type": "custom"])?.contains("leaves no output") == true)
        #expect(failure(weightShape: [2, 1, 2, 2], ints: ["output_shape": [1, 5, 4, 4]])?.contains("output_shape") == true)
        #expect(failure(weightShape: [3, 1, 2, 2])?.contains("does not have 3 channels") == true)
        #expect(failure(weightShape: [2, 1, 2, 2], strings: ["pad_type": "reflect"])?.contains("not supported") == true)
        let fine = failure(weightShape: [2, 1, 2, 2])
        #expect(fine == nil, "\(fine ?? "")")
    }
}
