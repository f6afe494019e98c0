import CoreMLSpec
import Foundation
import Testing
@testable import _OpenCoreMLEngine

/// `cond` and `while_loop` on hand-built programs: branches and loop bodies read the values around
/// them, their own names stay inside; and the hostile forms — an undefined name in a block, a body
/// that does not yield the loop variables, a pred that is not one boolean, a loop that never ends,
/// nesting without end — are errors naming the operation, never a crash or a hang.
@Suite("ML Program operations: control flow")
struct ProgramPlanControlFlowTests {
    typealias Program = ProgramPlanTests.Program
    typealias Block = CoreML_Specification_MILSpec_Block
    typealias Operation = CoreML_Specification_MILSpec_Operation
    typealias DataType = CoreML_Specification_MILSpec_DataType

    /// A nested block made with `Program`'s helpers: `inputs` (name and declared type, if any), the
    /// operations `build` adds, and `outputs`.
    static func block(inputs: [(String, DataType?)] = [], outputs: [String], _ build: (inout Program) -> Void = { _ in }) -> Block {
        var program = Program()
        build(&program)
        var block = program.block
        block.inputs = inputs.map { name, type in
            var input = CoreML_Specification_MILSpec_NamedValueType()
            input.name = name
            if let type { input.type = Program.type([], type) }
            return input
        }
        block.outputs = outputs
        return block
    }

    /// Appends an operation holding `blocks`; `types` declares its outputs' data types.
    static func add(_ type: String, to program: inout Program, _ inputs: [String: [String]], outputs: [String],
                    types: [DataType]? = nil, blocks: [Block]) {
        program.operation(type, inputs, outputs: outputs)
        var operation = program.block.operations.removeLast()
        operation.blocks = blocks
        if let types {
            for (index, type) in types.enumerated() { operation.outputs[index].type = Program.type([], type) }
        }
        program.block.operations.append(operation)
    }

    /// `main` compiled with an iteration limit.
    static func plan(_ program: Program, outputs: [String], iterationLimit: Int = ProgramPlan.defaultIterationLimit) throws -> ProgramPlan {
        try ProgramPlan(program: program.specification(outputs: outputs), memoryLimit: 1 << 30, iterationLimit: iterationLimit)
    }

    /// The error compiling `program` or running it on `x` gives, if any.
    static func failure(_ program: Program, outputs: [String] = ["y"], x: MILTensor = MILTensor(shape: [3], values: [1, 2, 3]),
                        iterationLimit: Int = 1000) -> String? {
        do {
            _ = try plan(program, outputs: outputs, iterationLimit: iterationLimit).run(["x": x])
            return nil
        } catch let error as EngineError {
            return error.description
        } catch {
            return "unexpected \(error)"
        }
    }

    /// y = cond(sum(x) > 0, x · two, x − 1); the true branch reads the outer input and constant.
    static func condProgram() -> Program {
        var p = Program()
        p.input("x", [3])
        p.constant("two", floats: [2], shape: [])
        p.constant("one", floats: [1], shape: [])
        p.constant("zero", floats: [0], shape: [])
        p.operation("reduce_sum", ["x": ["x"]], output: "s")
        p.operation("greater", ["x": ["s"], "y": ["zero"]], output: "p")
        let yes = block(outputs: ["doubled", "two"]) { $0.operation("mul", ["x": ["x"], "y": ["two"]], output: "doubled") }
        let no = block(outputs: ["lowered", "one"]) { $0.operation("sub", ["x": ["x"], "y": ["one"]], output: "lowered") }
        add("cond", to: &p, ["pred": ["p"]], outputs: ["y", "which"], blocks: [yes, no])
        return p
    }

    @Test func condRunsTheBranchItsPredChoosesReadingOuterValues() throws {
        let plan = try Self.plan(Self.condProgram(), outputs: ["y", "which"])
        let positive = try plan.run(["x": MILTensor(shape: [3], values: [1, 2, 3])])
        #expect(positive["y"] == MILTensor(shape: [3], values: [2, 4, 6]))
        #expect(positive["which"]?.values == [2])
        let negative = try plan.run(["x": MILTensor(shape: [3], values: [-1, -2, 0])])
        #expect(negative["y"] == MILTensor(shape: [3], values: [-2, -3, -1]))
        #expect(negative["which"]?.values == [1])
    }

    /// (i, acc) from (0, x): while i < limit { i + 1, acc · x } — the body reads the outer x.
    static func loopProgram(limit: Float = 3, extra: (inout Program) -> Void = { _ in }) -> Program {
        var p = Program()
        p.input("x", [3])
        p.constant("start", floats: [0], shape: [])
        p.constant("limit", floats: [limit], shape: [])
        p.constant("one", floats: [1], shape: [])
        let condition = block(inputs: [("i", nil), ("acc", nil)], outputs: ["going"]) {
            $0.operation("less", ["x": ["i"], "y": ["limit"]], output: "going")
        }
        let body = block(inputs: [("i", nil), ("acc", nil)], outputs: ["next", "product"]) {
            $0.operation("add", ["x": ["i"], "y": ["one"]], output: "next")
            $0.operation("mul", ["x": ["acc"], "y": ["x"]], output: "product")
            extra(&$0)
        }
        add("while_loop", to: &p, ["loop_vars": ["start", "x"]], outputs: ["count", "y"], blocks: [condition, body])
        return p
    }

    @Test func whileLoopCarriesItsVariablesAndRunsItsBodyOnlyWhileTheConditionHolds() throws {
        let x = MILTensor(shape: [3], values: [1, 2, 3])
        let result = try Self.plan(Self.loopProgram(), outputs: ["count", "y"]).run(["x": x])
        #expect(result["count"]?.values == [3])
        #expect(result["y"] == MILTensor(shape: [3], values: [1, 16, 81]))  // x⁴: x, then three products
        let never = try Self.plan(Self.loopProgram(limit: 0), outputs: ["count", "y"]).run(["x": x])
        #expect(never["count"]?.values == [0])
        #expect(never["y"] == x)
    }

    @Test func namesDefinedInABlockStayInside() {
        var p = Self.loopProgram()
        p.operation("relu", ["x": ["product"]], output: "z")
        let message = Self.failure(p, outputs: ["z"])
        #expect(message?.contains("reads undefined 'product'") == true, "\(message ?? "no error")")
    }

    @Test func anUndefinedNameInsideABlockIsNamedWithItsPlace() {
        let p = Self.loopProgram { $0.operation("add", ["x": ["i"], "y": ["nowhere"]], output: "lost") }
        let message = Self.failure(p, outputs: ["y"])
        #expect(message?.contains("(while_loop → count), body: operation 2 (add → lost): input 'y' reads undefined 'nowhere'") == true,
                "\(message ?? "no error")")
        var q = Self.condProgram()
        q.block.operations[q.block.operations.count - 1].blocks[1].outputs = ["missing", "one"]
        let other = Self.failure(q, outputs: ["y"])
        #expect(other?.contains("false branch: block output 'missing' is not defined") == true, "\(other ?? "no error")")
    }

    @Test func aBodyThatDoesNotYieldTheLoopVariablesIsRefused() {
        var p = Self.loopProgram()
        p.block.operations[p.block.operations.count - 1].blocks[1].outputs = ["next"]
        let message = Self.failure(p, outputs: ["y"])
        #expect(message?.contains("the body block takes 2 inputs and yields 1 values") == true, "\(message ?? "no error")")

        // Declared types: the body yields an int32 where the loop variable is float32.
        var q = Self.loopProgram()
        let loop = q.block.operations.count - 1
        q.block.operations[loop].blocks[1].inputs[1].type = Program.type([3])
        q.block.operations[loop].blocks[1].operations[0].outputs[0].type = Program.type([], .int32)
        q.block.operations[loop].blocks[1].outputs = ["product", "next"]
        q.block.operations[loop].blocks[1].inputs[0].type = Program.type([], .float32)
        let typed = Self.failure(q, outputs: ["y"])
        #expect(typed?.contains("the body yields") == true && typed?.contains("for loop variable") == true, "\(typed ?? "no error")")

        var r = Self.loopProgram()
        r.block.operations[r.block.operations.count - 1].outputs.removeLast()
        #expect(Self.failure(r, outputs: ["count"])?.contains("1 outputs for 2 loop variables") == true)
    }

    @Test func aPredThatIsNotOneBooleanIsRefused() {
        // Declared float32: refused when compiled.
        var p = Self.condProgram()
        let greater = p.block.operations.count - 2
        p.block.operations[greater].outputs[0].type = Program.type([], .float32)
        let message = Self.failure(p, outputs: ["y"])
        #expect(message?.contains("(cond → y): pred 'p' is float32, not bool") == true, "\(message ?? "no error")")
        // Three values (no declared type): refused when it runs.
        var q = Self.condProgram()
        q.operation("relu", ["x": ["x"]], output: "r")
        q.block.operations.insert(q.block.operations.removeLast(), at: q.block.operations.count - 1)
        q.block.operations[q.block.operations.count - 1].inputs["pred"]!.arguments[0].name = "r"
        let three = Self.failure(q, outputs: ["y"])
        #expect(three?.contains("pred holds 3 values") == true, "\(three ?? "no error")")
        // A loop condition of three values.
        var r = Self.loopProgram()
        r.block.operations[r.block.operations.count - 1].blocks[0].outputs = ["acc"]
        let loop = Self.failure(r, outputs: ["y"])
        #expect(loop?.contains("the condition block yields 3 values") == true, "\(loop ?? "no error")")
    }

    @Test func aLoopThatNeverEndsStopsAtTheIterationLimit() throws {
        let endless = Self.loopProgram(limit: .infinity)
        let start = Date()
        let message = Self.failure(endless, outputs: ["y"], x: MILTensor(shape: [3], values: [1, 1, 1]), iterationLimit: 1000)
        #expect(message?.contains("(while_loop → count): more than 1000 loop iterations in one prediction") == true, "\(message ?? "no error")")
        // The default limit too, within seconds (under a second here).
        let plan = try Self.plan(endless, outputs: ["y"])
        #expect(throws: EngineError.self) { try plan.run(["x": MILTensor(shape: [3], values: [1, 1, 1])]) }
        #expect(Date().timeIntervalSince(start) < 30)
    }

    @Test func nestedLoopsShareOnePredictionsIterationBudget() {
        // An outer loop of 40 iterations whose body runs an inner loop of 40: 1,640 iterations in all.
        var p = Program()
        p.input("x", [3])
        p.constant("zero", floats: [0], shape: [])
        p.constant("one", floats: [1], shape: [])
        p.constant("forty", floats: [40], shape: [])
        let counting = Self.block(inputs: [("j", nil)], outputs: ["more"]) { $0.operation("less", ["x": ["j"], "y": ["forty"]], output: "more") }
        let step = Self.block(inputs: [("j", nil)], outputs: ["j1"]) { $0.operation("add", ["x": ["j"], "y": ["one"]], output: "j1") }
        let outerCondition = Self.block(inputs: [("i", nil)], outputs: ["going"]) { $0.operation("less", ["x": ["i"], "y": ["forty"]], output: "going") }
        let outerBody = Self.block(inputs: [("i", nil)], outputs: ["i1"]) {
            Self.add("while_loop", to: &$0, ["loop_vars": ["zero"]], outputs: ["inner"], blocks: [counting, step])
            $0.operation("add", ["x": ["i"], "y": ["one"]], output: "i1")
        }
        Self.add("while_loop", to: &p, ["loop_vars": ["zero"]], outputs: ["y"], blocks: [outerCondition, outerBody])
        #expect(Self.failure(p, iterationLimit: 2000) == nil)
        let message = Self.failure(p, iterationLimit: 1000)
        #expect(message?.contains("body: operation 0 (while_loop → inner): more than 1000 loop iterations") == true, "\(message ?? "no error")")
    }

    @Test func malformedControlFlowIsRefused() {
        var p = Self.condProgram()
        p.block.operations[p.block.operations.count - 1].blocks.removeLast()
        #expect(Self.failure(p)?.contains("cond holds 1 blocks; it needs two") == true)
        var q = Self.loopProgram()
        q.block.operations[q.block.operations.count - 1].blocks.append(Self.block(outputs: []))
        #expect(Self.failure(q)?.contains("while_loop holds 3 blocks") == true)
        var r = Program()
        r.input("x", [3])
        Self.add("relu", to: &r, ["x": ["x"]], outputs: ["y"], blocks: [Self.block(outputs: [])])
        #expect(Self.failure(r)?.contains("only cond and while_loop take blocks") == true)
        var s = Self.condProgram()
        s.block.operations[s.block.operations.count - 1].blocks[0].inputs = Self.block(inputs: [("q", nil)], outputs: []).inputs
        #expect(Self.failure(s, outputs: ["y"])?.contains("the true branch takes 1 inputs; a cond branch takes none") == true)
        var t = Self.condProgram()
        t.block.operations[t.block.operations.count - 1].blocks[1].outputs = ["lowered"]
        #expect(Self.failure(t, outputs: ["y"])?.contains("the false branch yields 1 values for 2 outputs") == true)
    }

    @Test func blocksNestedWithoutEndAreRefused() {
        var p = Program()
        p.input("x", [3])
        p.constant("one", floats: [1], shape: [])
        p.operation("relu", ["x": ["one"]], output: "yes")  // a computed pred: the test's constants declare float32
        var inner = Self.block(outputs: ["x"])
        for level in 0..<40 {
            var holder = Program()
            Self.add("cond", to: &holder, ["pred": ["yes"]], outputs: ["level\(level)"], blocks: [inner, inner])
            inner = holder.block
            inner.outputs = ["level\(level)"]
        }
        p.block.operations += inner.operations
        let message = Self.failure(p, outputs: ["level39"])
        #expect(message?.contains("blocks nested more than 32 deep") == true, "\(message ?? "no error")")
    }
}
