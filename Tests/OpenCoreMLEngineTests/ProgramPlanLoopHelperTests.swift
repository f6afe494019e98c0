import Testing
@testable import _OpenCoreMLEngine

/// The operations loops lean on — `shape`, `fill`, `fill_like`, `range_1d`, `scatter`, `stack`,
/// `topk`, `argsort`, the logical operations, `identity` — by hand, and their hostile parameters
/// (sizes past the memory limit, indices out of range) as errors naming the operation.
@Suite("ML Program operations: loop helpers")
struct ProgramPlanLoopHelperTests {
    typealias Program = ProgramPlanTests.Program

    @Test func shapesFillsRangesAndLogic() throws {
        var p = Program()
        p.input("x", [2, 3])
        p.constant("start", floats: [1], shape: [])
        p.constant("end", floats: [-1], shape: [])
        p.constant("step", floats: [-0.5], shape: [])
        p.constant("seven", floats: [7], shape: [])
        p.constant("two", floats: [2], shape: [])
        p.operation("shape", ["x": ["x"]], output: "shape")
        p.operation("fill", ["shape": ["shape"], "value": ["seven"]], output: "filled")
        p.operation("fill_like", ["ref_tensor": ["x"]], output: "zeros")
        p.operation("range_1d", ["start": ["start"], "end": ["end"], "step": ["step"]], output: "range")
        p.operation("greater", ["x": ["x"], "y": ["two"]], output: "big")
        p.operation("less", ["x": ["x"], "y": ["seven"]], output: "small")
        p.operation("logical_and", ["x": ["big"], "y": ["small"]], output: "and")
        p.operation("logical_or", ["x": ["big"], "y": ["small"]], output: "or")
        p.operation("logical_xor", ["x": ["big"], "y": ["x"]], output: "xor")
        p.operation("logical_not", ["x": ["big"]], output: "not")
        p.operation("identity", ["x": ["x"]], output: "same")
        p.operation("stack", ["values": ["x", "same"], "axis": ["two"]], output: "stacked")
        let result = try p.plan(outputs: ["shape", "filled", "zeros", "range", "and", "or", "xor", "not", "same", "stacked"])
            .run(["x": MILTensor(shape: [2, 3], values: [0, 1, 2, 3, 4, 5])])
        #expect(result["shape"] == MILTensor(shape: [2], values: [2, 3]))
        #expect(result["filled"] == MILTensor(shape: [2, 3], values: .init(repeating: 7, count: 6)))
        #expect(result["zeros"] == MILTensor(shape: [2, 3], values: .init(repeating: 0, count: 6)))
        #expect(result["range"] == MILTensor(shape: [4], values: [1, 0.5, 0, -0.5]))
        #expect(result["and"]?.values == [0, 0, 0, 1, 1, 1])
        #expect(result["or"]?.values == [1, 1, 1, 1, 1, 1])
        #expect(result["xor"]?.values == [0, 1, 1, 0, 0, 0])
        #expect(result["not"]?.values == [1, 1, 1, 0, 0, 0])
        #expect(result["same"]?.values == [0, 1, 2, 3, 4, 5])
        #expect(result["stacked"] == MILTensor(shape: [2, 3, 2], values: [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]))
    }

    @Test func scatterTopkAndArgsort() throws {
        var p = Program()
        p.input("x", [2, 3])
        p.input("rows", [2])
        p.input("updates", [2, 2])
        p.constant("axis", ints: [1], shape: [])
        p.constant("k", ints: [2], shape: [])
        p.constant("mul", string: "mul", shape: [])
        p.operation("scatter", ["data": ["x"], "indices": ["rows"], "updates": ["updates"], "axis": ["axis"]], output: "added")
        p.operation("scatter", ["data": ["x"], "indices": ["rows"], "updates": ["updates"], "axis": ["axis"], "mode": ["mul"]], output: "scaled")
        p.operation("topk", ["x": ["x"], "k": ["k"]], outputs: ["top", "where"])
        p.operation("argsort", ["x": ["x"]], output: "order")
        let plan = try p.plan(outputs: ["added", "scaled", "top", "where", "order"])
        let x = MILTensor(shape: [2, 3], values: [3, 1, 2, 5, 5, 4])
        let result = try plan.run(["x": x, "rows": MILTensor(shape: [2], values: [2, -3]), "updates": MILTensor(shape: [2, 2], values: [10, 20, 30, 40])])
        #expect(result["added"] == MILTensor(shape: [2, 3], values: [23, 1, 12, 45, 5, 34]))
        #expect(result["scaled"] == MILTensor(shape: [2, 3], values: [60, 1, 20, 200, 5, 120]))
        #expect(result["top"] == MILTensor(shape: [2, 2], values: [3, 2, 5, 5]))
        #expect(result["where"] == MILTensor(shape: [2, 2], values: [0, 2, 0, 1]))  // ties keep their order
        #expect(result["order"] == MILTensor(shape: [2, 3], values: [0, 2, 1, 0, 1, 2]))
        #expect(throws: EngineError.self) {
            try plan.run(["x": x, "rows": MILTensor(shape: [2], values: [3, 0]), "updates": MILTensor(shape: [2, 2], values: [1, 2, 3, 4])])
        }
        #expect(throws: EngineError.self) {
            try plan.run(["x": x, "rows": MILTensor(shape: [2], values: [0, 1]), "updates": MILTensor(shape: [2, 1], values: [1, 2])])
        }
    }

    @Test func topkWithoutIndicesHasOneOutput() throws {
        var p = Program()
        p.input("x", [4])
        p.constant("no", ints: [0], shape: [])
        p.constant("ascending", ints: [1], shape: [])
        p.operation("topk", ["x": ["x"], "return_indices": ["no"], "ascending": ["ascending"]], output: "y")
        let result = try p.plan(outputs: ["y"]).run(["x": MILTensor(shape: [4], values: [3, -1, 2, 0])])
        #expect(result["y"] == MILTensor(shape: [1], values: [-1]))
        var q = Program()
        q.input("x", [4])
        q.operation("topk", ["x": ["x"]], output: "y")
        #expect(q.planError?.contains("1 outputs; topk has two") == true)
    }

    @Test(arguments: [
        ("range_1d", ["start": [0], "end": [1e12], "step": [1]], "more than the memory limit allows"),
        ("range_1d", ["start": [0], "end": [1], "step": [0]], "is not a finite range"),
        ("range_1d", ["start": [0], "end": [.infinity], "step": [1]], "is not a finite range"),
        ("fill", ["shape": [1_048_576, 1_048_576]], "memory limit"),
        ("fill", ["shape": [2, -3]], "negative size"),
        ("topk", ["k": [9]], "k 9 is out of range"),
    ] as [(String, [String: [Float]], String)])
    func hostileParameters(type: String, floats: [String: [Float]], expected: String) {
        var p = Program()
        p.input("x", [2, 3])
        var inputs: [String: [String]] = type == "topk" ? ["x": ["x"]] : [:]
        for (name, values) in floats {
            p.constant("c_\(name)", floats: values, shape: name == "shape" ? [values.count] : [])
            inputs[name] = ["c_\(name)"]
        }
        let outputs = type == "topk" ? ["y", "i"] : ["y"]
        p.operation(type, inputs, outputs: outputs)
        var message: String?
        do {
            _ = try p.plan(outputs: outputs).run(["x": MILTensor(shape: [2, 3], values: [0, 1, 2, 3, 4, 5])])
        } catch {
            message = (error as? EngineError)?.description
        }
        #expect(message?.contains(expected) == true, "\(type): \(message ?? "no error")")
        #expect(message?.contains("(\(type) → y)") == true)
    }
}
