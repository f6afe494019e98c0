import CoreMLSpec

/// An ML Program's `main` function compiled once: constants decoded, compressed weights
/// decompressed (the `constexpr_` operations, see ``MILConstexprOperations``), every other
/// operation resolved to a step that reads and writes numbered slots, an unsupported operation
/// refused at compile time. Nested blocks (the branches of `cond`, the condition and body of
/// `while_loop`) are compiled once too, into ``BlockPlan``s that share the function's slots and
/// read the names of the blocks around them. Compiling also plans the buffers: each value is
/// released after the last step of its block that reads it, and its buffer serves later steps and
/// later runs (``StepList``, ``BufferPool``).
/// Run it with the function's inputs by name; it returns the block's outputs by name.
///
/// Every tensor is computed in float32, float16 programs too (their `cast` to fp16 rounds values
/// to half precision, so results stay within float16's precision of Core ML's). No tensor an
/// operation makes may hold more than an eighth of `memoryLimit` bytes' worth of floats (a step and
/// its inputs stay within the limit), no decompressed weight more than the whole limit; a larger one
/// is an error, never an allocation. Loops are capped: one prediction may run at most
/// `iterationLimit` `while_loop` iterations, all loops together, so a loop whose condition never
/// turns false ends with an error naming it instead of running forever.
package final class ProgramPlan: @unchecked Sendable {
    /// Where a step reads an argument: a slot filled while running, or a constant.
    enum Argument {
        case slot(Int)
        case constant(MILConstant)
    }

    typealias Step = (inout Frame) throws -> Void

    /// The most `while_loop` iterations one prediction may run unless the plan is given another
    /// limit: 100,000 (a recurrent layer written as a loop takes one per time step).
    package static let defaultIterationLimit = 100_000

    package let inputNames: [String]
    package let outputNames: [String]
    /// The most `while_loop` iterations one run may take, all loops together.
    package let iterationLimit: Int
    private let inputSlots: [Int]
    private let outputSlots: [Int]
    /// Per slot, whether a step fills it (and a released tensor's buffer may be pooled).
    private let filledByStep: [Bool]
    private let steps: StepList
    private let pools = BufferPools()

    /// Compiles `program`'s `main` function.
    ///
    /// - Throws: `MILProgramError` naming the first operation that cannot run (its type, or the
    ///   input whose value is not supported), nested blocks included.
    package init(program: CoreML_Specification_MILSpec_Program, memoryLimit: Int,
                 iterationLimit: Int = ProgramPlan.defaultIterationLimit) throws {
        guard let function = program.functions[CoreML_Specification_MILSpec_Program.mainFunctionName],
              let block = function.blockSpecializations[function.opset] else {
            throw MILProgramError("the program has no 'main' function with a body for its opset")
        }
        var builder = Builder(memoryLimit: memoryLimit)
        inputNames = function.inputs.map(\.name)
        inputSlots = function.inputs.map { builder.newSlot(named: $0.name, type: $0.type, isInput: true) }
        steps = try builder.compile(block.operations, outputs: block.outputs, scope: "")
        outputNames = block.outputs
        outputSlots = try block.outputs.map { name in
            guard let slot = builder.slots[name] else { throw MILProgramError("output '\(name)' is a constant or undefined") }
            return slot
        }
        filledByStep = builder.filledByStep
        self.iterationLimit = max(iterationLimit, 0)
    }

    /// Runs the program on `inputs` (one tensor per function input).
    ///
    /// - Throws: `MILProgramError` for a missing input, shapes an operation cannot take, or more
    ///   loop iterations than `iterationLimit`.
    package func run(_ inputs: [String: MILTensor]) throws -> [String: MILTensor] {
        try measuredRun(inputs).outputs
    }

    /// Runs the program on `inputs` and says what the run held (see ``RunStatistics``).
    ///
    /// Step outputs come from a pool of the buffers earlier steps and runs released (see
    /// ``BufferPool``): the pool stays with the plan between runs, as Core ML keeps a loaded
    /// model's buffers.
    package func measuredRun(_ inputs: [String: MILTensor]) throws -> (outputs: [String: MILTensor], statistics: RunStatistics) {
        try execute(inputs) { try steps.run(&$0) }
    }

    /// One step of `main`, timed: the value it makes, its operation type and its seconds per run
    /// (a `cond`'s or `while_loop`'s include its blocks').
    package struct StepTiming: Sendable {
        package let name: String
        package let type: String
        package var seconds: Double
    }

    /// Runs the program `runs` times on `inputs` with `clock` read around every step of `main`:
    /// where a run's time goes, and what the last run held.
    package func profile(_ inputs: [String: MILTensor], runs: Int, clock: LayerTimings.Clock) throws -> (steps: [StepTiming], statistics: RunStatistics) {
        var seconds = [Double](repeating: 0, count: steps.steps.count)
        var statistics = RunStatistics()
        for _ in 0..<max(runs, 1) {
            statistics = try execute(inputs) { try steps.run(&$0, timing: clock, into: &seconds) }.statistics
        }
        let timings = zip(steps.labels, seconds).map { label, total in
            StepTiming(name: label.name, type: label.type, seconds: total / Double(max(runs, 1)))
        }
        return (timings, statistics)
    }

    /// A frame with the pool of an earlier run and `inputs` in their slots, `body` running it,
    /// the outputs, and the pool back for the next run.
    private func execute(_ inputs: [String: MILTensor], _ body: (inout Frame) throws -> Void) throws -> (outputs: [String: MILTensor], statistics: RunStatistics) {
        var frame = Frame(poolable: filledByStep, pool: pools.take(), iterationLimit: iterationLimit)
        for (name, slot) in zip(inputNames, inputSlots) {
            guard let tensor = inputs[name] else { throw MILProgramError("input '\(name)' is missing") }
            frame[slot] = tensor
        }
        try body(&frame)
        var outputs: [String: MILTensor] = [:]
        for (name, slot) in zip(outputNames, outputSlots) { outputs[name] = frame[slot] }
        let statistics = frame.statistics
        pools.give(frame.pool)
        return (outputs, statistics)
    }
}

/// What an operation's compiler needs: its arguments by parameter name, constants decoded.
struct OperationContext {
    let operation: CoreML_Specification_MILSpec_Operation
    let place: String
    let builder: ProgramPlan.Builder
    /// The most values one tensor may hold.
    let limit: Int
    /// The activation the step also applies to its output, whose slot is then the activation's
    /// (see ``ProgramPlan/Builder/fusion(at:in:readers:)``); nil for none.
    var fusedActivation: MILFusedActivation? = nil

    /// A new zero-filled buffer for a tensor of `shape`, checked against the limit: scratch for a
    /// helper that has no frame (a step's output comes from ``ProgramPlan/Frame/buffer(_:_:)``).
    func buffer(_ shape: [Int]) throws -> [Float] {
        [Float](repeating: 0, count: try MILTensor.checkedCount(shape, limit: limit, place))
    }

    func arguments() throws -> [String: [ProgramPlan.Argument]] {
        var result: [String: [ProgramPlan.Argument]] = [:]
        for (parameter, argument) in operation.inputs {
            result[parameter] = try argument.arguments.map { binding in
                switch binding.binding {
                case .name(let name)?:
                    guard let resolved = builder.argument(named: name) else {
                        throw MILProgramError("\(place): input '\(parameter)' reads undefined '\(name)'")
                    }
                    return resolved
                case .value(let value)?:
                    return .constant(try MILConstant(value, at: "\(place), input '\(parameter)'"))
                case nil:
                    throw MILProgramError("\(place): input '\(parameter)' is bound to nothing")
                }
            }
        }
        return result
    }

    /// The data type the program declares for `parameter`'s (first) argument, nil when it declares
    /// none. Every tensor is float32 while the program runs, so an operation whose meaning depends
    /// on its input's type (a bool mask against a float one) asks here, when it is compiled.
    func declaredDataType(of parameter: String) -> CoreML_Specification_MILSpec_DataType? {
        let type: CoreML_Specification_MILSpec_ValueType?
        switch operation.inputs[parameter]?.arguments.first?.binding {
        case .name(let name)?: type = builder.types[name]
        case .value(let value)?: type = value.type
        case nil: type = nil
        }
        return ProgramPlan.Builder.tensorType(type).map(\.dataType).flatMap { $0 == .unusedType ? nil : $0 }
    }

    func fail(_ message: String) -> MILProgramError { MILProgramError("\(place): \(message)") }
}
