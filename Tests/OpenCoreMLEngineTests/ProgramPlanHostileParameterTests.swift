import Testing
@testable import _OpenCoreMLEngine

/// Parameters a model file could hold to read past a tensor, divide by zero or allocate gigabytes
/// are errors naming the operation and what is wrong, when the step is made or when it runs —
/// never a crash. Also: `split`'s several outputs, and computed (not constant) indices.
@Suite("ML Program operations: hostile parameters")
struct ProgramPlanHostileParameterTests {
    typealias Program = ProgramPlanTests.Program

    /// The error compiling `program` or running it on `x` (values 0, 1, 2, …) gives, if any.
    static func failure(_ program: Program, x shape: [Int] = [2, 3, 4], outputs: [String] = ["y"]) -> String? {
        do {
            let plan = try program.plan(outputs: outputs)
            let count = shape.reduce(1, *)
            _ = try plan.run(["x": MILTensor(shape: shape, values: (0..<count).map(Float.init))])
            return nil
        } catch let error as EngineError {
            return error.description
        } catch {
            return "unexpected \(error)"
        }
    }

    /// A program on input `x` of rank 3 applying `type` with integer constants `ints` (name → values).
    static func program(_ type: String, ints: [String: [Int32]] = [:], floats: [String: [Float]] = [:],
                        strings: [String: String] = [:], outputs: [String] = ["y"]) -> Program {
        var p = Program()
        p.input("x", [2, 3, 4])
        var inputs = ["x": ["x"]]
        for (name, values) in ints {
            p.constant("c_\(name)", ints: values, shape: [values.count])
            inputs[name] = ["c_\(name)"]
        }
        for (name, values) in floats {
            p.constant("c_\(name)", floats: values, shape: values.count == 1 ? [] : [values.count])
            inputs[name] = ["c_\(name)"]
        }
        for (name, value) in strings {
            p.constant("c_\(name)", string: value, shape: [])
            inputs[name] = ["c_\(name)"]
        }
        p.operation(type, inputs, outputs: outputs)
        return p
    }

    @Test(arguments: [
        ("gather", ["indices": [0, 4], "axis": [2]], "index 4.0 is out of range"),
        ("gather", ["indices": [-5], "axis": [-1]], "index -5.0 is out of range"),
        ("gather", ["indices": [0], "axis": [3]], "axis 3 is out of range"),
        ("gather", ["indices": [0], "axis": [1], "batch_dims": [2]], "batch_dims 2 does not fit"),
        ("reduce_sum", ["axes": [0, -3]], "name an axis twice"),
        ("reduce_max", ["axes": [5]], "axis 5 is out of range"),
        ("layer_norm", ["axes": [-4]], "axis -4 is out of range"),
        ("split", ["axis": [2], "num_splits": [3]], "split into 3 parts"),
        ("split", ["axis": [2], "split_sizes": [3, 2]], "do not add up to 4"),
        ("split", ["axis": [2], "split_sizes": [5, -1]], "negative size"),
        ("slice_by_index", ["begin": [0, 0, 0], "end": [2, 3, 4], "stride": [1, 0, 1]], "holds a zero"),
        ("slice_by_index", ["begin": [0, 0], "end": [2, 3]], "begin holds 2 values"),
        ("slice_by_index", ["begin": [2, 0, 0], "end": [2, 3, 4], "squeeze_mask": [1, 0, 0]], "index 2 is out of range"),
        ("slice_by_size", ["begin": [1, 0, 0], "size": [2, -1, -1]], "reach outside"),
        ("slice_by_size", ["begin": [0, 0, -9], "size": [1, 1, 1]], "reach outside"),
        ("tile", ["reps": [1 << 12, 1 << 12, 1 << 12]], "memory limit"),
        ("tile", ["reps": [1, -1, 1]], "counts of 0 or more"),
        ("pad", ["pad": [4, 0]], "does not fit dimension 2"),
        ("pad", ["pad": [-1, 0]], "counts of 0 or more"),
        ("pad", ["pad": [1, 1, 1, 1, 1, 1, 1, 1]], "at most 3 dimensions"),
        ("pad", ["pad": [1 << 30, 0]], "memory limit"),
    ] as [(String, [String: [Int32]], String)])
    func integerParameters(type: String, ints: [String: [Int32]], expected: String) {
        var strings: [String: String] = [:]
        if type == "pad", ints["pad"] == [4, 0] { strings["mode"] = "reflect" }
        let outputs = type == "split" ? ["a", "b"] : ["y"]
        let message = Self.failure(Self.program(type, ints: ints, strings: strings, outputs: outputs), outputs: outputs)
        #expect(message?.contains(expected) == true, "\(type) \(ints): \(message ?? "no error")")
        #expect(message?.contains("(\(type) → ") == true, "the error names the operation: \(message ?? "")")
    }

    @Test(arguments: [
        ("upsample_nearest_neighbor", ["scale_factor_height": [0]], [:], "must be above 0"),
        ("upsample_bilinear", ["scale_factor_width": [1e9]], [:], "at most 65536"),
        ("upsample_nearest_neighbor", ["scale_factor_height": [60000], "scale_factor_width": [60000]], [:], "memory limit"),
        ("upsample_bilinear", ["scale_factor_height": [.nan]], [:], "must be above 0"),
        ("gelu", [:], ["mode": "FAST"], "mode 'FAST'"),
        ("pad", ["pad": [1, 1]], ["mode": "wrap"], "pad mode 'wrap'"),
        ("leaky_relu", [:], [:], "needs a constant alpha"),
        ("sigmoid_hard", ["alpha": [0.2]], [:], "needs constant alpha and beta"),
        ("layer_norm", ["gamma": [1, 2, 3]], [:], "input 'gamma' holds 3 values"),
        ("batch_norm", ["mean": [0, 0], "variance": [1, 1]], [:], "does not have 2 channels"),
        ("batch_norm", ["mean": [0, 0, 0], "variance": [1, 1]], [:], "its variance 2"),
        ("instance_norm", ["beta": [1, 2]], [:], "input 'beta' holds 2 values for 3 channels"),
    ] as [(String, [String: [Float]], [String: String], String)])
    func otherParameters(type: String, floats: [String: [Float]], strings: [String: String], expected: String) {
        let message = Self.failure(Self.program(type, floats: floats, strings: strings))
        #expect(message?.contains(expected) == true, "\(type): \(message ?? "no error")")
    }

    @Test func splitFillsEachOutputAndOnlySplitMayHaveSeveral() throws {
        let plan = try Self.program("split", ints: ["axis": [1], "split_sizes": [1, 2]], outputs: ["a", "b"]).plan(outputs: ["a", "b"])
        let result = try plan.run(["x": MILTensor(shape: [2, 3, 4], values: (0..<24).map(Float.init))])
        #expect(result["a"] == MILTensor(shape: [2, 1, 4], values: [0, 1, 2, 3, 12, 13, 14, 15]))
        #expect(result["b"]?.shape == [2, 2, 4])
        #expect(result["b"]?.values.prefix(4) == [4, 5, 6, 7])
        let message = Self.failure(Self.program("relu", outputs: ["a", "b"]), outputs: ["a"])
        #expect(message?.contains("2 outputs; 'relu' has one") == true, "\(message ?? "no error")")
    }

    /// Indices that come from the program's input, not a constant, are checked when the step runs.
    @Test func computedIndicesAreCheckedWhenTheStepRuns() throws {
        var p = Program()
        p.input("x", [4])
        p.input("i", [2])
        p.constant("axis", ints: [0], shape: [])
        p.operation("gather", ["x": ["x"], "indices": ["i"], "axis": ["axis"]], output: "y")
        p.operation("gather_along_axis", ["x": ["x"], "indices": ["i"], "axis": ["axis"]], output: "z")
        let plan = try p.plan(outputs: ["y", "z"])
        let x = MILTensor(shape: [4], values: [10, 11, 12, 13])
        let result = try plan.run(["x": x, "i": MILTensor(shape: [2], values: [3, -4])])
        #expect(result["y"] == MILTensor(shape: [2], values: [13, 10]))
        #expect(result["z"] == MILTensor(shape: [2], values: [13, 10]))
        for bad: Float in [4, -5, .nan, .infinity, 1e20] {
            #expect(throws: EngineError.self) { try plan.run(["x": x, "i": MILTensor(shape: [2], values: [0, bad])]) }
        }
    }
}
