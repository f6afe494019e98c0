import CoreMLSpec
import Foundation
import Testing
@testable import _OpenCoreMLEngine

/// iOS 17's `quantize` and `dequantize` against NumPy (coremltools' own reference functions), the
/// random operations by their statistics (tolerances of five standard errors for the sample
/// size) and their seeds, and list values carried through a `while_loop`.
@Suite("ML Program operations: quantization, random values, lists")
struct MILRandomListQuantizeTests {
    typealias Program = ProgramPlanTests.Program
    typealias Block = CoreML_Specification_MILSpec_Block

    /// A constant of 8-bit integers stored as bytes, as coremltools writes int8 and uint8.
    static func bytes(_ program: inout Program, _ name: String, _ values: [Int], _ shape: [Int], _ type: CoreML_Specification_MILSpec_DataType) {
        program.constant(name, floats: [0], shape: [])
        var operation = program.block.operations.removeLast()
        var value = CoreML_Specification_MILSpec_Value()
        value.type = Program.type(shape, type)
        value.immediateValue.tensor.bytes.values = Data(values.map { UInt8(truncatingIfNeeded: $0) })
        operation.attributes["val"] = value
        operation.outputs[0].type = value.type
        program.block.operations.append(operation)
    }

    /// The error `body` throws, described ("no error" when it throws none).
    static func failure(_ body: () throws -> Void) -> String {
        guard case .failure(let error) = Result(catching: body) else { return "no error" }
        return "\(error)"
    }

    // MARK: quantize, dequantize

    @Test func quantizeRoundsHalfToEvenAddsTheZeroPointAndClamps() throws {
        var p = Program()
        p.input("x", [8])
        p.constant("scale", floats: [0.5], shape: [])
        Self.bytes(&p, "zero", [3], [], .int8)
        p.constant("dtype", string: "int8", shape: [])
        p.operation("quantize", ["input": ["x"], "scale": ["scale"], "zero_point": ["zero"], "output_dtype": ["dtype"]], output: "q")
        let x = MILTensor(shape: [8], values: [-1.5, -0.5, 0.25, 0.75, 1.25, 300, -300, 0.26])
        // NumPy: coremltools.optimize._utils.quantize_by_scale_and_zp(x, 0.5, int8(3), int8) = [0 2 3 5 5 127 -128 4]
        #expect(try p.plan(outputs: ["q"]).run(["x": x])["q"] == MILTensor(shape: [8], values: [0, 2, 3, 5, 5, 127, -128, 4]))
    }

    @Test func quantizePerChannelAlongANegativeAxis() throws {
        var p = Program()
        p.input("x", [2, 3])
        p.constant("scale", floats: [1, 2, 4], shape: [3])
        Self.bytes(&p, "zero", [0, 10, 128], [3], .uint8)
        p.constant("axis", ints: [-1], shape: [])
        p.constant("dtype", string: "uint8", shape: [])
        p.operation("quantize", ["input": ["x"], "scale": ["scale"], "zero_point": ["zero"], "axis": ["axis"], "output_dtype": ["dtype"]], output: "q")
        let x = MILTensor(shape: [2, 3], values: [0, 1, 2, -3, 250, -5])
        // NumPy (same function, scale and zero point as [1, 3]): [[0 10 128] [0 135 127]]
        #expect(try p.plan(outputs: ["q"]).run(["x": x])["q"] == MILTensor(shape: [2, 3], values: [0, 10, 128, 0, 135, 127]))
    }

    @Test func dequantizePerChannelAndWithoutAZeroPoint() throws {
        var p = Program()
        p.input("q", [2, 3])
        p.input("u", [3])
        p.constant("scale", floats: [0.5, 0.25], shape: [2])
        Self.bytes(&p, "zero", [1, -2], [2], .int8)
        p.constant("axis", ints: [0], shape: [])
        p.constant("tenth", floats: [0.1], shape: [])
        p.operation("dequantize", ["input": ["q"], "scale": ["scale"], "zero_point": ["zero"], "axis": ["axis"]], output: "d")
        p.operation("dequantize", ["input": ["u"], "scale": ["tenth"]], output: "e")
        let result = try p.plan(outputs: ["d", "e"]).run(["q": MILTensor(shape: [2, 3], values: [-128, 0, 127, 5, 6, 7]),
                                                          "u": MILTensor(shape: [3], values: [0, 128, 255])])
        // NumPy: dequantize_by_scale_and_zp: [[-64.5 -0.5 63] [1.75 2 2.25]] and [0 12.8 25.5]
        #expect(result["d"] == MILTensor(shape: [2, 3], values: [-64.5, -0.5, 63, 1.75, 2, 2.25]))
        let e = try #require(result["e"])
        #expect(e.shape == [3] && zip(e.values, [0, 12.8, 25.5] as [Float]).allSatisfy { abs($0 - $1) < 1e-5 })
    }

    @Test func quantizationParametersThatDoNotFitAreErrors() {
        func run(_ build: (inout Program) -> Void) -> String {
            var p = Program()
            p.input("x", [2, 3])
            build(&p)
            return Self.failure { _ = try p.plan(outputs: ["q"]).run(["x": MILTensor(shape: [2, 3], values: [1, 2, 3, 4, 5, 6])]) }
        }
        let noAxis = run {
            $0.constant("scale", floats: [1, 2, 4], shape: [3])
            $0.operation("dequantize", ["input": ["x"], "scale": ["scale"]], output: "q")
        }
        #expect(noAxis.contains("needs 'axis'"), "\(noAxis)")
        let wrongLength = run {
            $0.constant("scale", floats: [1, 2], shape: [2])
            $0.constant("axis", ints: [1], shape: [])
            $0.operation("dequantize", ["input": ["x"], "scale": ["scale"], "axis": ["axis"]], output: "q")
        }
        #expect(wrongLength.contains("3 along axis 1"), "\(wrongLength)")
        let scalarWithAxis = run {
            $0.constant("scale", floats: [1], shape: [])
            $0.constant("axis", ints: [0], shape: [])
            $0.operation("dequantize", ["input": ["x"], "scale": ["scale"], "axis": ["axis"]], output: "q")
        }
        #expect(scalarWithAxis.contains("'axis' is given"), "\(scalarWithAxis)")
        let wideType = run {
            $0.constant("scale", floats: [1], shape: [])
            $0.constant("dtype", string: "int16", shape: [])
            $0.operation("quantize", ["input": ["x"], "scale": ["scale"], "output_dtype": ["dtype"]], output: "q")
        }
        #expect(wideType.contains("'int16' is not int8 or uint8"), "\(wideType)")
        let zeroScale = run {
            $0.constant("scale", floats: [0], shape: [])
            $0.constant("dtype", string: "int8", shape: [])
            $0.operation("quantize", ["input": ["x"], "scale": ["scale"], "output_dtype": ["dtype"]], output: "q")
        }
        #expect(zeroScale.contains("scale holds 0"), "\(zeroScale)")
    }

    // MARK: Random values

    /// One random operation of `type` whose shape is the input "shape" (computed, not constant).
    static func randomProgram(_ type: String, floats: [String: Float] = [:], seed: Int32? = nil) -> Program {
        var p = Program()
        p.input("shape", [1], .int32)
        var inputs = ["shape": ["shape"]]
        for (name, value) in floats {
            p.constant(name, floats: [value], shape: [])
            inputs[name] = [name]
        }
        if let seed {
            p.constant("seed", ints: [seed], shape: [])
            inputs["seed"] = ["seed"]
        }
        p.operation(type, inputs, output: "y")
        return p
    }

    static func sample(_ program: Program, count: Int) throws -> [Float] {
        let y = try #require(try program.plan(outputs: ["y"]).run(["shape": MILTensor(shape: [1], values: [Float(count)])])["y"])
        #expect(y.shape == [count])
        return y.values
    }

    static func moments(_ values: [Float]) -> (mean: Double, variance: Double) {
        let mean = values.reduce(0.0) { $0 + Double($1) } / Double(values.count)
        return (mean, values.reduce(0.0) { $0 + (Double($1) - mean) * (Double($1) - mean) } / Double(values.count - 1))
    }

    @Test func uniformValuesFillTheirIntervalWithItsMeanAndVariance() throws {
        let n = 20_000
        let values = try Self.sample(Self.randomProgram("random_uniform", floats: ["low": -2, "high": 6]), count: n)
        #expect(values.allSatisfy { $0 >= -2 && $0 < 6 })
        let (mean, variance) = Self.moments(values)
        // Uniform on [-2, 6): mean 2, variance 8²/12 = 5.333; standard errors √(5.333/n) = 0.0163 and
        // √((μ₄ − σ⁴)/n) with μ₄ = 8⁴/80 = 51.2: √((51.2 − 28.44)/n) = 0.0337. Five of each:
        #expect(abs(mean - 2) < 0.082, "mean \(mean)")
        #expect(abs(variance - 64.0 / 12) < 0.17, "variance \(variance)")
    }

    @Test func normalValuesHaveTheirMeanVarianceAndOneSigmaShare() throws {
        let n = 20_000
        let values = try Self.sample(Self.randomProgram("random_normal", floats: ["mean": 1, "stddev": 3]), count: n)
        let (mean, variance) = Self.moments(values)
        // Standard errors: 3/√n = 0.0212 for the mean, √(2σ⁴/n) = 0.09 for the variance; the share
        // within one σ is 0.6827 with standard error √(0.6827 · 0.3173/n) = 0.0033. Five of each:
        #expect(abs(mean - 1) < 0.106, "mean \(mean)")
        #expect(abs(variance - 9) < 0.45, "variance \(variance)")
        let within = Double(values.filter { abs($0 - 1) < 3 }.count) / Double(n)
        #expect(abs(within - 0.6827) < 0.0165, "share within one sigma \(within)")
    }

    @Test func bernoulliValuesAreZerosAndOnesWithTheirProbability() throws {
        let n = 20_000
        let values = try Self.sample(Self.randomProgram("random_bernoulli", floats: ["prob": 0.3]), count: n)
        #expect(values.allSatisfy { $0 == 0 || $0 == 1 })
        // Standard error √(0.3 · 0.7/n) = 0.00324; five of it.
        #expect(abs(Self.moments(values).mean - 0.3) < 0.0162)
        #expect(try Self.sample(Self.randomProgram("random_bernoulli", floats: ["prob": 1]), count: 50).allSatisfy { $0 == 1 })
        #expect(try Self.sample(Self.randomProgram("random_bernoulli", floats: ["prob": 0]), count: 50).allSatisfy { $0 == 0 })
    }

    @Test func categoricalSamplesFollowLogitsAndProbabilities() throws {
        let size = 30_000
        for mode in ["logits", "probs"] {
            var p = Program()
            p.input("x", [2, 3])
            p.constant("mode", string: mode, shape: [])
            p.constant("size", ints: [Int32(size)], shape: [])
            p.operation("random_categorical", ["x": ["x"], "mode": ["mode"], "size": ["size"]], output: "y")
            // Row 0: classes with probabilities 1/6, 2/6, 3/6; row 1: 0.25, 0, 0.75 (a class never drawn).
            let x = mode == "logits"
                ? MILTensor(shape: [2, 3], values: [0, Float(log(2.0)), Float(log(3.0)), Float(log(0.25)), -Float.infinity, Float(log(0.75))])
                : MILTensor(shape: [2, 3], values: [1, 2, 3, 0.25, 0, 0.75])  // unnormalized weights are scaled
            let y = try #require(try p.plan(outputs: ["y"]).run(["x": x])["y"])
            #expect(y.shape == [2, size])
            for (row, expected) in [[1.0 / 6, 2.0 / 6, 3.0 / 6], [0.25, 0, 0.75]].enumerated() {
                let samples = y.values[(row * size)..<((row + 1) * size)]
                for (index, probability) in expected.enumerated() {
                    let share = Double(samples.filter { $0 == Float(index) }.count) / Double(size)
                    // Five standard errors √(p(1 − p)/size) (0.0136 at p = ½); exactly 0 for p = 0.
                    #expect(abs(share - probability) <= 5 * (probability * (1 - probability) / Double(size)).squareRoot(),
                            "\(mode) row \(row) class \(index): \(share)")
                }
            }
        }
    }

    @Test func aFixedSeedRepeatsItsValuesAndMinusOneDoesNot() throws {
        let seeded = Self.randomProgram("random_uniform", floats: ["low": -2, "high": 6], seed: 42)
        let first = try Self.sample(seeded, count: 5)
        // SplitMix64 written out in Python: the generator seeded with the first output of one seeded
        // with 42 · 0x9E3779B97F4A7C15 (mod 2⁶⁴) xor 0 (no loop iterations), each value
        // −2 + 8 · (next >> 40) · 2⁻²⁴ in float32, as bit patterns:
        #expect(first.map(\.bitPattern) == [3_215_655_856, 1_079_802_692, 1_040_618_816, 1_079_431_330, 1_084_666_468])
        let plan = try seeded.plan(outputs: ["y"])
        let shape = MILTensor(shape: [1], values: [64])
        #expect(try plan.run(["shape": shape])["y"] == plan.run(["shape": shape])["y"])
        #expect(try Self.sample(Self.randomProgram("random_uniform", seed: 43), count: 64) != Self.sample(Self.randomProgram("random_uniform", seed: 42), count: 64))
        let unseeded = try Self.randomProgram("random_normal", seed: -1).plan(outputs: ["y"])
        #expect(try unseeded.run(["shape": shape])["y"] != unseeded.run(["shape": shape])["y"])
    }

    @Test func aRandomShapeThatIsNegativeOrTooLargeIsAnError() {
        let program = Self.randomProgram("random_normal")
        let negative = Self.failure { _ = try program.plan(outputs: ["y"]).run(["shape": MILTensor(shape: [1], values: [-3])]) }
        #expect(negative.contains("negative size"), "\(negative)")
        let huge = Self.failure { _ = try program.plan(outputs: ["y"]).run(["shape": MILTensor(shape: [1], values: [0x1p29])]) }
        #expect(huge.contains("memory limit"), "\(huge)")
    }

    // MARK: Lists

    /// A list type for a value's declaration.
    static var listType: CoreML_Specification_MILSpec_ValueType {
        var type = CoreML_Specification_MILSpec_ValueType()
        type.listType.type = Program.type([1])
        return type
    }

    /// squares = [i · i for i in 0..<n] written by a while_loop into a list of one-value elements,
    /// gathered by `list_gather` over `range_1d(0, list_length)`; also `list_read` at 2.
    static func squaresProgram(dynamic: Bool = true, elementSize: Int = 1) -> Program {
        var p = Program()
        p.input("n", [1])
        p.constant("zero", floats: [0], shape: [])
        p.constant("one", floats: [1], shape: [])
        p.constant("two", ints: [2], shape: [])
        p.constant("start", ints: [0], shape: [])
        p.constant("step", ints: [1], shape: [])
        p.constant("length", ints: [1], shape: [])
        p.constant("dynamic", ints: [dynamic ? 1 : 0], shape: [])
        p.constant("size", ints: [Int32(elementSize)], shape: [])
        p.constant("element", ints: [Int32(elementSize)], shape: [1])
        p.operation("make_list", ["init_length": ["length"], "dynamic_length": ["dynamic"], "elem_shape": ["size"]], output: "empty")
        p.block.operations[p.block.operations.count - 1].outputs[0].type = listType
        let condition = ProgramPlanControlFlowTests.block(inputs: [("i", nil), ("ls", nil)], outputs: ["going"]) {
            $0.operation("less", ["x": ["i"], "y": ["n"]], output: "going")
        }
        let body = ProgramPlanControlFlowTests.block(inputs: [("i", nil), ("ls", nil)], outputs: ["next", "written"]) {
            $0.operation("mul", ["x": ["i"], "y": ["i"]], output: "square")
            $0.operation("fill", ["shape": ["element"], "value": ["square"]], output: "value")
            $0.operation("list_write", ["ls": ["ls"], "index": ["i"], "value": ["value"]], output: "written")
            $0.operation("add", ["x": ["i"], "y": ["one"]], output: "next")
        }
        ProgramPlanControlFlowTests.add("while_loop", to: &p, ["loop_vars": ["zero", "empty"]], outputs: ["count", "squares"],
                                        blocks: [condition, body])
        p.operation("list_length", ["ls": ["squares"]], output: "length_out")
        p.operation("range_1d", ["start": ["start"], "end": ["length_out"], "step": ["step"]], output: "indices")
        p.operation("list_gather", ["ls": ["squares"], "indices": ["indices"]], output: "gathered")
        p.operation("list_read", ["ls": ["squares"], "index": ["two"]], output: "read")
        return p
    }

    @Test func aWhileLoopWritesSquaresIntoAListThatIsGathered() throws {
        let plan = try Self.squaresProgram().plan(outputs: ["gathered", "length_out", "read", "count"])
        let result = try plan.run(["n": MILTensor(shape: [1], values: [4])])
        #expect(result["gathered"] == MILTensor(shape: [4, 1], values: [0, 1, 4, 9]))
        #expect(result["length_out"]?.values == [4])
        #expect(result["read"] == MILTensor(shape: [1], values: [4]))
        #expect(result["count"]?.values == [4])
        // A second run starts from a new list.
        #expect(try plan.run(["n": MILTensor(shape: [1], values: [3])])["gathered"] == MILTensor(shape: [3, 1], values: [0, 1, 4]))
    }

    @Test func listsReadZerosWhereNothingWasWrittenAndGrowOnlyWhenDynamic() throws {
        // coremltools' TestList smoke test: init_length 2, writes at 0 and 4, a scatter at 2 and 1.
        var p = Program()
        p.input("a", [2])
        p.input("b", [2])
        p.constant("two", ints: [2], shape: [])
        p.constant("zero", ints: [0], shape: [])
        p.constant("four", ints: [4], shape: [])
        p.constant("scatterAt", ints: [2, 1], shape: [2])
        p.constant("gatherAt", ints: [4, 2, 3], shape: [3])
        p.constant("rows", floats: [-1, -2, -4, -5], shape: [2, 2])
        p.operation("make_list", ["init_length": ["two"], "elem_shape": ["two"]], output: "ls0")
        p.operation("list_read", ["ls": ["ls0"], "index": ["zero"]], output: "initial")
        p.operation("list_write", ["ls": ["ls0"], "index": ["zero"], "value": ["a"]], output: "ls1")
        p.operation("list_write", ["ls": ["ls1"], "index": ["four"], "value": ["b"]], output: "ls2")
        p.operation("list_scatter", ["ls": ["ls2"], "indices": ["scatterAt"], "value": ["rows"]], output: "ls3")
        p.operation("list_read", ["ls": ["ls3"], "index": ["zero"]], output: "first")
        p.operation("list_gather", ["ls": ["ls3"], "indices": ["gatherAt"]], output: "gathered")
        p.operation("list_read", ["ls": ["ls0"], "index": ["zero"]], output: "unchanged")  // writes left ls0 as it was
        let result = try p.plan(outputs: ["initial", "first", "gathered", "unchanged"])
            .run(["a": MILTensor(shape: [2], values: [1, 3]), "b": MILTensor(shape: [2], values: [2, 4])])
        #expect(result["initial"] == MILTensor(shape: [2], values: [0, 0]))
        #expect(result["first"] == MILTensor(shape: [2], values: [1, 3]))
        #expect(result["gathered"] == MILTensor(shape: [3, 2], values: [2, 4, -1, -2, 0, 0]))
        #expect(result["unchanged"] == MILTensor(shape: [2], values: [0, 0]))

        let fixed = Self.failure { _ = try Self.squaresProgram(dynamic: false).plan(outputs: ["gathered"]).run(["n": MILTensor(shape: [1], values: [3])]) }
        #expect(fixed.contains("index 1 is out of range for a list of fixed length 1"), "\(fixed)")
        let outside = Self.failure { _ = try Self.squaresProgram().plan(outputs: ["read"]).run(["n": MILTensor(shape: [1], values: [2])]) }
        #expect(outside.contains("index 2 is out of range for a list of 2 elements"), "\(outside)")
    }

    @Test func aGrowingListDrawsFromTheMemoryBudget() throws {
        // 4,096-value elements (16 KiB each): 10 fit in a 2 MiB budget, 200 (3.2 MiB) do not.
        let program = Self.squaresProgram(elementSize: 4096).specification(outputs: ["length_out"])
        let plan = try ProgramPlan(program: program, memoryLimit: 2 << 20)
        #expect(try plan.run(["n": MILTensor(shape: [1], values: [10])])["length_out"]?.values == [10])
        let message = Self.failure { _ = try plan.run(["n": MILTensor(shape: [1], values: [200])]) }
        #expect(message.contains("memory"), "\(message)")
    }

    @Test func aTensorOperationReadingAListIsRefusedAndAListInputMustBeAList() {
        var p = Self.squaresProgram()
        p.operation("relu", ["x": ["empty"]], output: "bad")
        let refused = Self.failure { _ = try p.plan(outputs: ["bad"]) }
        #expect(refused.contains("input 'x' reads the list 'empty'; 'relu' takes a tensor there"), "\(refused)")
        var q = Program()
        q.input("x", [2])
        q.operation("list_length", ["ls": ["x"]], output: "n")
        let notAList = Self.failure { _ = try q.plan(outputs: ["n"]).run(["x": MILTensor(shape: [2], values: [1, 2])]) }
        #expect(notAList.contains("input 'ls' is not a list"), "\(notAList)")
    }

    @Test func constSymbolicIsAConstAndWithoutAValueAnError() throws {
        var p = Program()
        p.input("x", [2])
        p.constant("c", floats: [1, 2], shape: [2])
        p.block.operations[0].type = "_const_symbolic"
        p.operation("add", ["x": ["x"], "y": ["c"]], output: "y")
        #expect(try p.plan(outputs: ["y"]).run(["x": MILTensor(shape: [2], values: [10, 20])])["y"] == MILTensor(shape: [2], values: [11, 22]))
        p.block.operations[0].attributes = [:]
        let message = Self.failure { _ = try p.plan(outputs: ["y"]) }
        #expect(message.contains("a _const_symbolic without a value"), "\(message)")
    }
}
