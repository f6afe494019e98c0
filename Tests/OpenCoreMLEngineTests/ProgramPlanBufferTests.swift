import Testing
@testable import _OpenCoreMLEngine

/// The plan's buffer plan: a step's output is released after the last step that reads it (nested
/// blocks' reads included), its buffer serves later steps and later runs, and storage another
/// slot still holds (a `reshape` shares its input's) is never handed out.
@Suite("ML Program buffer plan")
struct ProgramPlanBufferTests {
    typealias Program = ProgramPlanTests.Program
    typealias ControlFlow = ProgramPlanControlFlowTests

    static let x = MILTensor(shape: [1000], values: (0..<1000).map { Float($0 % 17) - 8 })

    @Test func outputsLiveUntilTheirLastReaderAndTheirBuffersServeLaterSteps() throws {
        var p = Program()
        p.input("x", [1000])
        p.operation("add", ["x": ["x"], "y": ["x"]], output: "a")
        p.operation("add", ["x": ["a"], "y": ["a"]], output: "b")
        p.operation("add", ["x": ["b"], "y": ["b"]], output: "c")
        p.operation("add", ["x": ["c"], "y": ["c"]], output: "y")
        let plan = try p.plan(outputs: ["y"])
        let first = try plan.measuredRun(["x": Self.x])
        #expect(first.outputs["y"] == MILTensor(shape: [1000], values: Self.x.values.map { 16 * $0 }))
        // x and two step outputs at most, never all five tensors.
        #expect(first.statistics.peakLiveValues == 3000)
        // a and b are new; c fills a's buffer, y b's.
        #expect(first.statistics.newBuffers == 2 && first.statistics.reusedBuffers == 2, "\(first.statistics)")
        // Later runs only make the buffer of the output they hand over.
        let second = try plan.measuredRun(["x": Self.x])
        #expect(second.outputs == first.outputs)
        #expect(second.statistics.newBuffers == 1 && second.statistics.reusedBuffers == 3, "\(second.statistics)")
    }

    @Test func aProfileTimesEveryStepOfMain() throws {
        var p = Program()
        p.input("x", [1000])
        p.operation("add", ["x": ["x"], "y": ["x"]], output: "a")
        p.operation("relu", ["x": ["a"]], output: "b")
        p.operation("add", ["x": ["b"], "y": ["b"]], output: "y")
        let profile = try p.plan(outputs: ["y"]).profile(["x": Self.x], runs: 3, clock: .wall)
        // The relu runs inside the first add: one step, named by the value it makes.
        #expect(profile.steps.map(\.name) == ["b", "y"])
        #expect(profile.steps.map(\.type) == ["add + relu", "add"])
        #expect(profile.steps.allSatisfy { $0.seconds >= 0 } && profile.steps.contains { $0.seconds > 0 })
        #expect(profile.statistics.peakLiveValues == 3000)
    }

    @Test func storageAnotherSlotHoldsIsNotReused() throws {
        var p = Program()
        p.input("x", [1000])
        p.constant("shape", ints: [2, 500], shape: [2])
        p.operation("add", ["x": ["x"], "y": ["x"]], output: "a")
        p.operation("reshape", ["x": ["a"], "shape": ["shape"]], output: "r")
        p.operation("add", ["x": ["r"], "y": ["r"]], output: "y")
        let run = try p.plan(outputs: ["y"]).measuredRun(["x": Self.x])
        #expect(run.outputs["y"] == MILTensor(shape: [2, 500], values: Self.x.values.map { 4 * $0 }))
        // a is released after the reshape, but r still holds its storage: y needs a new buffer.
        #expect(run.statistics.reusedBuffers == 0 && run.statistics.newBuffers == 2, "\(run.statistics)")
        #expect(run.statistics.peakLiveValues == 3000)
    }

    @Test func valuesNestedBlocksReadLiveUntilTheirOperationEnds() throws {
        // `scaled` has no reader in main but the loop's body and the cond's branch.
        var p = ControlFlow.loopProgram { $0.operation("mul", ["x": ["acc"], "y": ["scaled"]], output: "unused") }
        var first = Program()
        first.operation("add", ["x": ["x"], "y": ["x"]], output: "scaled")
        p.block.operations.insert(first.block.operations[0], at: 0)
        let yes = ControlFlow.block(outputs: ["picked"]) { $0.operation("mul", ["x": ["scaled"], "y": ["scaled"]], output: "picked") }
        let no = ControlFlow.block(outputs: ["x"])
        p.operation("reduce_sum", ["x": ["x"]], output: "s")
        p.operation("greater", ["x": ["s"], "y": ["start"]], output: "positive")
        ControlFlow.add("cond", to: &p, ["pred": ["positive"]], outputs: ["z"], blocks: [yes, no])
        let plan = try ControlFlow.plan(p, outputs: ["y", "z"])
        for _ in 0..<2 {
            let result = try plan.run(["x": MILTensor(shape: [3], values: [1, 2, 3])])
            #expect(result["y"] == MILTensor(shape: [3], values: [1, 16, 81]))
            #expect(result["z"] == MILTensor(shape: [3], values: [4, 16, 36]))
        }
    }
}
