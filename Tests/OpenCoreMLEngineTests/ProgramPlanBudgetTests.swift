import CoreMLSpec
import Foundation
import Testing
@testable import _OpenCoreMLEngine
import _OpenCoreMLKernels

/// The hostile programs of the second security round, each ending in one error naming the operation
/// instead of a crash, a hang or memory past the limit: compiling costs memory linear in the
/// operation count; the constants, the tensors alive together and the kept buffers draw from one
/// budget; loops are bounded in work, not only in iterations; extreme integers and zero-sized
/// tensors with huge other dimensions are refused before any arithmetic on them.
@Suite("ML Program memory budget and hostile programs")
struct ProgramPlanBudgetTests {
    typealias Program = ProgramPlanTests.Program
    typealias Value = CoreML_Specification_MILSpec_Value

    /// `program`'s `main` compiled against `budget`.
    static func plan(_ program: Program, outputs: [String], budget: MemoryBudget,
                     loopWorkLimit: Int = ProgramPlan.defaultLoopWorkLimit) throws -> ProgramPlan {
        try ProgramPlan(program: program.specification(outputs: outputs), budget: budget, loopWorkLimit: loopWorkLimit)
    }

    /// The description of the error `body` throws (nil for none).
    static func failure(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as EngineError {
            return error.description
        } catch {
            return "unexpected \(error)"
        }
    }

    /// y = relu(relu(… relu(x))), `count` operations.
    static func chain(_ count: Int) -> Program {
        var p = Program()
        p.input("x", [4])
        for index in 0..<count {
            p.operation("relu", ["x": [index == 0 ? "x" : "v\(index - 1)"]], output: "v\(index)")
        }
        return p
    }

    /// The heap bytes malloc has handed out and not had back (glibc); nil elsewhere.
    static func heapInUse() -> Int? {
        let bytes = ocm_heap_in_use()
        return bytes < 0 ? nil : Int(bytes)
    }

    // MARK: Compiling

    /// 4,000 chained operations: a step's context once held a copy of the builder's tables, so the
    /// compiled plan grew with the square of the operation count (10,000 relus: 6 GB).
    @Test func aCompiledProgramHoldsMemoryLinearInItsOperations() throws {
        let budget = MemoryBudget(limit: 1 << 30)
        let program = Self.chain(4000)
        guard let before = Self.heapInUse() else { return }
        let plan = try Self.plan(program, outputs: ["v3999"], budget: budget)
        let held = Self.heapInUse()! - before
        // Other suites run beside this one, so the bound is loose: the quadratic plan held over a gigabyte.
        #expect(held < 256 << 20, "the plan holds \(held) bytes for 4,000 steps")
        #expect(plan.compiledBytes == 4000 * ProgramPlan.stepBytes)
        #expect(budget.usedBytes == plan.compiledBytes)
        let y = try plan.run(["x": MILTensor(shape: [4], values: [-1, 2, -3, 4])])["v3999"]
        #expect(y?.values == [0, 2, 0, 4])
    }

    /// 3,000 `cond`s in a row: each branch compiled once copied every name defined before it.
    @Test func manyCondsCompileWithoutCopyingTheScope() throws {
        var p = Program()
        p.input("x", [1])
        p.constant("zero", floats: [0], shape: [])
        p.operation("greater", ["x": ["x"], "y": ["zero"]], output: "p")
        var last = "x"
        for index in 0..<3000 {
            let yes = ProgramPlanControlFlowTests.block(outputs: ["t\(index)"]) { $0.operation("relu", ["x": [last]], output: "t\(index)") }
            let no = ProgramPlanControlFlowTests.block(outputs: [last]) { _ in }
            ProgramPlanControlFlowTests.add("cond", to: &p, ["pred": ["p"]], outputs: ["c\(index)"], blocks: [yes, no])
            last = "c\(index)"
        }
        let budget = MemoryBudget(limit: 1 << 30)
        guard let before = Self.heapInUse() else { return }
        let plan = try Self.plan(p, outputs: [last], budget: budget)
        let held = Self.heapInUse()! - before
        #expect(held < 256 << 20, "the plan holds \(held) bytes for 4,000 steps")
        #expect(try plan.run(["x": MILTensor(shape: [1], values: [5])])[last]?.values == [5])
        #expect(try plan.run(["x": MILTensor(shape: [1], values: [-5])])[last]?.values == [-5])
    }

    @Test func aProgramLargerThanTheLimitIsRefusedWhileCompiling() {
        let budget = MemoryBudget(limit: 1000 * ProgramPlan.stepBytes)
        let message = Self.failure { _ = try Self.plan(Self.chain(4000), outputs: ["v3999"], budget: budget) }
        #expect(message?.contains("operation 1000 (relu → v1000): needs 2.0 kB more") == true, "\(message ?? "no error")")
        #expect(message?.contains("passes the memory limit of 2.0 MB") == true, "\(message ?? "no error")")
        #expect(budget.usedBytes == 0, "a failed compile gives back what it reserved")
    }

    // MARK: Constants

    /// Constants count together: three of 40 % of the limit each cannot all be held.
    @Test func constantsCountTogetherAgainstTheLimit() throws {
        let limit = 4 << 20
        let values = [Float](repeating: 1, count: limit * 4 / 10 / 4)
        var p = Program()
        p.input("x", [1])
        for name in ["a", "b", "c"] { p.constant(name, floats: values, shape: [values.count]) }
        p.operation("relu", ["x": ["x"]], output: "y")
        let budget = MemoryBudget(limit: limit)
        let message = Self.failure { _ = try Self.plan(p, outputs: ["y"], budget: budget) }
        #expect(message?.contains("operation 2 (const → c)") == true, "\(message ?? "no error")")
        #expect(budget.usedBytes == 0)
        // Two fit, and the plan gives them back when it goes.
        p.block.operations.remove(at: 2)
        var plan: ProgramPlan? = try Self.plan(p, outputs: ["y"], budget: budget)
        #expect(budget.usedBytes == 2 * values.count * 4 + ProgramPlan.stepBytes)
        _ = try plan?.run(["x": MILTensor(shape: [1], values: [1])])
        plan = nil
        #expect(budget.usedBytes == 0)
    }

    // MARK: Running

    /// 24 `fill`s each within the per-tensor limit, alive together (all are outputs): together
    /// they pass the limit, and the run says so instead of allocating them all.
    @Test func tensorsAliveTogetherCountAgainstTheLimit() throws {
        let limit = 64 << 20
        var p = Program()
        p.input("x", [1])
        p.constant("shape", ints: [1 << 20], shape: [1])
        let outputs = (0..<24).map { "f\($0)" }
        for name in outputs { p.operation("fill", ["shape": ["shape"]], output: name) }
        let budget = MemoryBudget(limit: limit)
        let plan = try Self.plan(p, outputs: outputs, budget: budget)
        let message = Self.failure { _ = try plan.run(["x": MILTensor(shape: [1], values: [0])]) }
        #expect(message?.contains("(fill → f15): needs 4.2 MB more") == true, "\(message ?? "no error")")
        #expect(budget.usedBytes == plan.compiledBytes, "a failed run keeps no reservation but its pool's")
        #expect(budget.peakBytes <= limit)
        // Twelve fit; their buffers go to the caller, so the budget holds only the plan after the run.
        p.block.operations.removeLast(12)
        let fewer = try Self.plan(p, outputs: Array(outputs.prefix(12)), budget: MemoryBudget(limit: limit))
        let result = try fewer.run(["x": MILTensor(shape: [1], values: [0])])
        #expect(result.count == 12)
        #expect(fewer.budget.usedBytes == fewer.compiledBytes)
        #expect(fewer.budget.peakBytes == fewer.compiledBytes + 12 * (4 << 20))
    }

    /// Buffers a run released go to the pool, stay reserved for the next run, and are not
    /// reserved twice when reused.
    @Test func pooledBuffersStayReservedOnceBetweenRuns() throws {
        var p = Program()
        p.input("x", [1 << 16])
        p.operation("relu", ["x": ["x"]], output: "a")
        p.operation("exp", ["x": ["a"]], output: "b")
        p.operation("relu", ["x": ["b"]], output: "y")
        let budget = MemoryBudget(limit: 64 << 20)
        let plan = try Self.plan(p, outputs: ["y"], budget: budget)
        let x = MILTensor(shape: [1 << 16], values: [Float](repeating: 0.5, count: 1 << 16))
        _ = try plan.run(["x": x])
        let afterOne = budget.usedBytes
        for _ in 0..<5 { _ = try plan.run(["x": x]) }
        #expect(budget.usedBytes == afterOne)
        #expect(afterOne > plan.compiledBytes, "the pool keeps a released buffer reserved")
        #expect(afterOne <= plan.compiledBytes + 2 * (1 << 16) * 4)
    }

    // MARK: Loops

    /// A loop whose body is a 128 × 128 matrix product: few iterations, much work each; the work
    /// limit ends it where the iteration limit would not.
    @Test func aLoopIsBoundedByItsWorkNotOnlyItsIterations() throws {
        var p = Program()
        p.input("x", [128, 128])
        p.constant("start", floats: [0], shape: [])
        p.constant("limit", floats: [50], shape: [])
        p.constant("one", floats: [1], shape: [])
        let condition = ProgramPlanControlFlowTests.block(inputs: [("i", nil), ("acc", nil)], outputs: ["going"]) {
            $0.operation("less", ["x": ["i"], "y": ["limit"]], output: "going")
        }
        let body = ProgramPlanControlFlowTests.block(inputs: [("i", nil), ("acc", nil)], outputs: ["next", "product"]) {
            $0.operation("add", ["x": ["i"], "y": ["one"]], output: "next")
            $0.operation("matmul", ["x": ["acc"], "y": ["x"]], output: "product")
        }
        ProgramPlanControlFlowTests.add("while_loop", to: &p, ["loop_vars": ["start", "x"]], outputs: ["count", "y"], blocks: [condition, body])
        let x = MILTensor(shape: [128, 128], values: [Float](repeating: 0, count: 128 * 128))
        // 50 iterations of 128³ multiply-adds (plus the values written) fit in 2²⁷ but not in 2²⁶.
        let enough = try Self.plan(p, outputs: ["count"], budget: MemoryBudget(limit: 1 << 30), loopWorkLimit: 1 << 27)
        #expect(try enough.run(["x": x])["count"]?.values == [50])
        let small = try Self.plan(p, outputs: ["count"], budget: MemoryBudget(limit: 1 << 30), loopWorkLimit: 1 << 26)
        let message = Self.failure { _ = try small.run(["x": x]) }
        #expect(message?.contains("(matmul → product): the loops of one prediction did more than 67108864 multiply-adds' worth of work (the loop work limit)") == true,
                "\(message ?? "no error")")
        // Work outside loops is not counted: the same product in the function's body runs.
        var straight = Program()
        straight.input("x", [128, 128])
        straight.operation("matmul", ["x": ["x"], "y": ["x"]], output: "y")
        let outside = try Self.plan(straight, outputs: ["y"], budget: MemoryBudget(limit: 1 << 30), loopWorkLimit: 1)
        #expect(try outside.run(["x": x])["y"]?.shape == [128, 128])
    }

    // MARK: Extreme integers and shapes

    /// A constant of 64-bit integers.
    static func addLongs(_ program: inout Program, _ name: String, _ values: [Int64]) {
        program.constant(name, ints: [0], shape: [values.count])
        var operation = program.block.operations.removeLast()
        var value = Value()
        value.type = Program.type([values.count], .int64)
        value.immediateValue.tensor.longInts.values = values
        operation.attributes["val"] = value
        operation.outputs[0].type = value.type
        program.block.operations.append(operation)
    }

    /// −2⁶³ in an integer parameter trapped in `abs()`.
    @Test(arguments: [
        ("slice_by_index", ["begin", "end"]), ("reshape", ["shape"]), ("fill", ["shape"]), ("tile", ["reps"]),
    ])
    func theMostNegativeIntegerIsAnErrorNotATrap(type: String, parameters: [String]) throws {
        var p = Program()
        p.input("x", [2, 3])
        var inputs: [String: [String]] = type == "fill" ? [:] : ["x": ["x"]]
        for parameter in parameters {
            Self.addLongs(&p, parameter, [Int64.min, Int64.min])
            inputs[parameter] = [parameter]
        }
        p.operation(type, inputs, output: "y")
        let message = Self.failure {
            _ = try Self.plan(p, outputs: ["y"], budget: MemoryBudget(limit: 1 << 30)).run(["x": MILTensor(shape: [2, 3], values: [1, 2, 3, 4, 5, 6])])
        }
        #expect(message?.contains("(\(type) → y): input '\(parameters[0])' holds -9.223372e+18, not a usable integer") == true, "\(message ?? "no error")")
    }

    /// A zero-sized tensor with huge other dimensions: its count is 0, but the products of its
    /// other sizes (strides, rows around an axis) overflowed in a dozen operations.
    @Test func aZeroSizeDoesNotExcuseHugeOtherSizes() throws {
        let huge = [0, 1 << 30, 1 << 30, 1 << 30]
        // As a constant's declared shape.
        var constant = Program()
        constant.input("x", [1])
        constant.constant("c", floats: [], shape: huge)
        constant.operation("softmax", ["x": ["c"]], output: "y")
        let declared = Self.failure { _ = try Self.plan(constant, outputs: ["y"], budget: MemoryBudget(limit: 1 << 30)) }
        #expect(declared?.contains("(const → c): shape [0, 1073741824, 1073741824, 1073741824] holds more than the memory limit allows") == true,
                "\(declared ?? "no error")")
        // As the shape a fill computes.
        var fill = Program()
        fill.input("x", [1])
        fill.constant("shape", ints: huge.map(Int32.init), shape: [4])
        fill.operation("fill", ["shape": ["shape"]], output: "f")
        fill.operation("softmax", ["x": ["f"]], output: "y")
        let filled = Self.failure {
            _ = try Self.plan(fill, outputs: ["y"], budget: MemoryBudget(limit: 1 << 30)).run(["x": MILTensor(shape: [1], values: [0])])
        }
        #expect(filled?.contains("(fill → f): shape [0, 1073741824, 1073741824, 1073741824] holds more than the memory limit allows") == true,
                "\(filled ?? "no error")")
        // As an input's shape.
        var input = Program()
        input.input("x", [1])
        input.operation("softmax", ["x": ["x"]], output: "y")
        let given = Self.failure {
            _ = try Self.plan(input, outputs: ["y"], budget: MemoryBudget(limit: 1 << 30)).run(["x": MILTensor(shape: [0, 1 << 40, 1 << 40], values: [])])
        }
        #expect(given?.contains("input 'x': shape [0, 1099511627776, 1099511627776] holds more") == true, "\(given ?? "no error")")
        // A zero size with modest other sizes still runs.
        #expect(try MILTensor.checkedCount([0, 3, 4], limit: 12, "") == 0)
        #expect(throws: EngineError.self) { try MILTensor.checkedCount([0, 3, 5], limit: 12, "") }
    }

    /// `range_1d` whose step leads away from its end by 10⁶⁰ steps: empty, not a trap converting
    /// −10⁶⁰ to an integer (found while writing the fuzz seeds); an ordinary range still counts up.
    @Test(arguments: [(Float(-1e30), Float(1e-30), [Float]()), (1, 0.25, [0, 0.25, 0.5, 0.75])])
    func aRangeGoingTheOtherWayIsEmptyHoweverFar(end: Float, step: Float, expected: [Float]) throws {
        var p = Program()
        p.input("x", [1])
        p.constant("start", floats: [0], shape: [])
        p.constant("end", floats: [end], shape: [])
        p.constant("step", floats: [step], shape: [])
        p.operation("range_1d", ["start": ["start"], "end": ["end"], "step": ["step"]], output: "y")
        let plan = try Self.plan(p, outputs: ["y"], budget: MemoryBudget(limit: 1 << 30))
        #expect(try plan.run(["x": MILTensor(shape: [1], values: [0])])["y"] == MILTensor(shape: [expected.count], values: expected))
    }
}
