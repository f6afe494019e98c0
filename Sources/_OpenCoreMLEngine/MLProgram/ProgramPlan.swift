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
/// to half precision, so results stay within float16's precision of Core ML's).
///
/// Memory: everything the plan holds draws from one ``MemoryBudget`` — the compiled steps
/// (``stepBytes`` each), the constants and decompressed weights together, the tensors a run holds
/// at once (concurrent runs together) and the buffers kept between runs — reserved before it is
/// allocated, so a program that would pass the limit ends in an error naming the operation, never
/// an allocation. No tensor an operation makes may hold more than an eighth of the limit's worth of
/// floats either (a step's scratch stays within the limit). Compiling costs memory and time linear
/// in the operation count, nested blocks included.
///
/// Loops are capped: one prediction may run at most `iterationLimit` `while_loop` iterations and
/// do at most `loopWorkLimit` multiply-adds' worth of work inside loops (a matrix product counts
/// its multiply-adds, every other value a step writes ``valueWork``), all loops together, so a loop
/// whose condition never turns false, or whose body is huge, ends with an error naming it instead
/// of running for hours.
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

    /// The most work the loops of one prediction may do unless the plan is given another limit:
    /// 2⁴⁰ multiply-adds' worth (tens of seconds on one core).
    package static let defaultLoopWorkLimit = 1 << 40

    /// The work one value written inside a loop counts for, in multiply-adds: an elementwise pass
    /// costs about as much per value as this many multiply-adds of a matrix product.
    package static let valueWork = 32

    /// The bytes each compiled step is reckoned to hold (its closure, its context and its name),
    /// reserved from the budget while the plan lives.
    package static let stepBytes = 2048

    /// The function's inputs that are not states, in its order.
    package let inputNames: [String]
    package let outputNames: [String]
    /// The function's state inputs (iOS 18), in its order: what a run reads and updates (see
    /// ``run(_:states:)``).
    package let stateNames: [String]
    /// The most `while_loop` iterations one run may take, all loops together.
    package let iterationLimit: Int
    /// The most work the loops of one run may do, in multiply-adds (see ``valueWork``).
    package let loopWorkLimit: Int
    /// The budget the plan and its runs draw from.
    package let budget: MemoryBudget
    /// The bytes the compiled plan holds reserved: its steps and constants.
    package let compiledBytes: Int
    private let inputSlots: [Int]
    private let outputSlots: [Int]
    /// Per state, its slot, its shape and whether it holds float16 values.
    let stateSlots: [Int]
    let stateTypes: [(shape: [Int], isHalf: Bool)]
    /// Per slot, whether a step fills it (and a released tensor's buffer may be pooled).
    private let filledByStep: [Bool]
    private let steps: StepList
    private let pools: BufferPools

    /// A program may return a constant (a `const` or a constexpr operation's value, such as
    /// decompressed weights); each such output leaves through an `identity` step, so that it has a
    /// slot like every other output (Core ML returns it like any other).
    static func constantOutputCopies(_ block: CoreML_Specification_MILSpec_Block) -> [CoreML_Specification_MILSpec_Operation] {
        var constantTypes: [String: CoreML_Specification_MILSpec_ValueType] = [:]
        for operation in block.operations where operation.type == "const" || operation.type.hasPrefix("constexpr_") {
            for output in operation.outputs { constantTypes[output.name] = output.type }
        }
        return block.outputs.compactMap { name in
            guard let type = constantTypes[name] else { return nil }
            var binding = CoreML_Specification_MILSpec_Argument.Binding()
            binding.name = name
            var argument = CoreML_Specification_MILSpec_Argument()
            argument.arguments = [binding]
            var output = CoreML_Specification_MILSpec_NamedValueType()
            output.name = name
            output.type = type
            var copy = CoreML_Specification_MILSpec_Operation()
            copy.type = "identity"
            copy.inputs = ["x": argument]
            copy.outputs = [output]
            return copy
        }
    }

    /// Compiles `program`'s function `functionName` (`main` unless named) with a budget of its own
    /// of `memoryLimit` bytes.
    package convenience init(program: CoreML_Specification_MILSpec_Program, memoryLimit: Int,
                             functionName: String = CoreML_Specification_MILSpec_Program.mainFunctionName,
                             iterationLimit: Int = ProgramPlan.defaultIterationLimit,
                             loopWorkLimit: Int = ProgramPlan.defaultLoopWorkLimit) throws {
        try self.init(program: program, budget: MemoryBudget(limit: memoryLimit), functionName: functionName,
                      iterationLimit: iterationLimit, loopWorkLimit: loopWorkLimit)
    }

    /// Compiles `program`'s function `functionName` (`main` unless named: a multifunction
    /// program's other functions run the same way), its steps and constants reserved from `budget`;
    /// `customOperations` compute its `custom_layer` operations, by layer name.
    ///
    /// - Throws: `EngineError` naming the first operation that cannot run (its type, or the
    ///   input whose value is not supported), nested blocks included; `EngineError.memoryLimit` naming
    ///   the operation at which the compiled program would pass the budget's limit.
    package init(program: CoreML_Specification_MILSpec_Program, budget: MemoryBudget,
                 functionName: String = CoreML_Specification_MILSpec_Program.mainFunctionName,
                 iterationLimit: Int = ProgramPlan.defaultIterationLimit,
                 loopWorkLimit: Int = ProgramPlan.defaultLoopWorkLimit,
                 customOperations: [String: any CustomOperation] = [:]) throws {
        guard let function = program.functions[functionName], let block = function.blockSpecializations[function.opset] else {
            throw EngineError("the program has no '\(functionName)' function with a body for its opset")
        }
        let reservations = CompileBudget(budget)
        // What compiling reserved is given back if it fails, and when the plan goes.
        var compiled = false
        defer { if !compiled { budget.release(reservations.bytes) } }
        var builder = Builder(reservations: reservations)
        builder.customOperations = customOperations
        let (tensors, states) = try Self.splitStates(function.inputs)
        // A state's float32 value lives through every run (and a new state's zeros are made for
        // each profiled run): its size is reserved with the plan, so one larger than the budget
        // refuses the model at load.
        for state in states {
            try reservations.reserve(state.shape.reduce(1, *) * MemoryLayout<Float>.size, for: "state '\(state.name)'")
        }
        inputNames = tensors.map(\.name)
        inputSlots = tensors.map { builder.newSlot(named: $0.name, type: $0.type, isInput: true) }
        stateNames = states.map(\.name)
        stateTypes = states.map { ($0.shape, $0.isHalf) }
        stateSlots = states.map { builder.newSlot(named: $0.name, type: $0.type, isInput: true) }
        steps = try builder.compile(block.operations + Self.constantOutputCopies(block), outputs: block.outputs, scope: "")
        outputNames = block.outputs
        outputSlots = try block.outputs.map { name in
            guard let slot = builder.slots[name] else { throw EngineError("output '\(name)' is a constant or undefined") }
            return slot
        }
        filledByStep = builder.filledByStep
        self.iterationLimit = max(iterationLimit, 0)
        self.loopWorkLimit = max(loopWorkLimit, 0)
        self.budget = budget
        pools = BufferPools(budget: budget)
        compiledBytes = reservations.bytes
        compiled = true
    }

    deinit {
        budget.release(compiledBytes)
    }

    /// Runs the program on `inputs` (one tensor per function input).
    ///
    /// - Throws: `EngineError` for a missing input, shapes an operation cannot take, or more
    ///   loop iterations than `iterationLimit`.
    package func run(_ inputs: [String: MILTensor]) throws -> [String: MILTensor] {
        try measuredRun(inputs).outputs
    }

    /// Runs the program on `inputs`, reading each state's value from `states` (by name) and
    /// leaving its new value there (see ``stateNames``).
    ///
    /// - Throws: `EngineError` for a missing input or state, a state of another shape, or what
    ///   ``run(_:)`` throws for.
    package func run(_ inputs: [String: MILTensor], states: inout [String: MILTensor]) throws -> [String: MILTensor] {
        try execute(inputs, states: &states) { try steps.run(&$0) }.outputs
    }

    /// Runs the program on `inputs` and says what the run held (see ``RunStatistics``).
    ///
    /// Step outputs come from a pool of the buffers earlier steps and runs released (see
    /// ``BufferPool``): the pool stays with the plan between runs, as Core ML keeps a loaded
    /// model's buffers.
    package func measuredRun(_ inputs: [String: MILTensor]) throws -> (outputs: [String: MILTensor], statistics: RunStatistics) {
        var states = zeroStates()
        return try execute(inputs, states: &states) { try steps.run(&$0) }
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
            var states = zeroStates()
            statistics = try execute(inputs, states: &states) { try steps.run(&$0, timing: clock, into: &seconds) }.statistics
        }
        let timings = zip(steps.labels, seconds).map { label, total in
            StepTiming(name: label.name, type: label.type, seconds: total / Double(max(runs, 1)))
        }
        return (timings, statistics)
    }

    /// A frame with the pool of an earlier run and `inputs` and `states` in their slots, `body`
    /// running it, the outputs, the states' new values in `states`, and the pool back for the next run.
    private func execute(_ inputs: [String: MILTensor], states: inout [String: MILTensor],
                         _ body: (inout Frame) throws -> Void) throws -> (outputs: [String: MILTensor], statistics: RunStatistics) {
        var frame = Frame(poolable: filledByStep, pool: pools.take(), budget: budget, iterationLimit: iterationLimit, loopWorkLimit: loopWorkLimit)
        let pooledBefore = frame.pool.bytes
        // Whatever happens, the budget keeps only what the pool keeps: the outputs are the caller's.
        defer { pools.give(frame.pool, reservedBefore: pooledBefore, reservedByRun: frame.reservedBytes) }
        for (name, slot) in zip(inputNames, inputSlots) {
            guard let tensor = inputs[name] else { throw EngineError("input '\(name)' is missing") }
            _ = try MILTensor.checkedCount(tensor.shape, limit: Int(Int32.max), "input '\(name)'")
            frame[slot] = tensor
        }
        try placeStates(states, in: &frame)
        try body(&frame)
        takeStates(&states, from: frame)
        var outputs: [String: MILTensor] = [:]
        for (name, slot) in zip(outputNames, outputSlots) { outputs[name] = frame[slot] }
        return (outputs, frame.statistics)
    }
}

/// What an operation's compiler needs: its arguments by parameter name, constants decoded, and
/// the types the program declares for them. Steps keep their context, so it holds nothing of the
/// builder's tables (they grow with the program): what it needs of them is read when it is made.
struct OperationContext {
    let operation: CoreML_Specification_MILSpec_Operation
    let place: String
    /// The value each parameter's arguments read, resolved in the builder's scope.
    private let resolved: [String: [ProgramPlan.Argument?]]
    /// The type the program declares for each parameter's first argument, where it declares one.
    private let declaredTypes: [String: CoreML_Specification_MILSpec_ValueType]
    /// The most values one tensor may hold.
    let limit: Int
    /// What `custom_layer` operations compute, by layer name.
    let customOperations: [String: any CustomOperation]
    /// The activation the step also applies to its output, whose slot is then the activation's
    /// (see ``ProgramPlan/Builder/fusion(at:in:readers:)``); nil for none.
    var fusedActivation: Activation? = nil
    /// A fused PReLU's slopes (one, or one per channel of axis 1), constants of the `prelu` after
    /// an `add` (see ``ProgramPlan/Builder/fusion(at:in:readers:)``).
    var fusedSlopes: [Float]? = nil

    /// A new zero-filled buffer for a tensor of `shape`, checked against the limit: scratch for a
    /// helper that has no frame (a step's output comes from ``ProgramPlan/Frame/buffer(_:_:)``).
    func buffer(_ shape: [Int]) throws -> [Float] {
        [Float](repeating: 0, count: try MILTensor.checkedCount(shape, limit: limit, place))
    }

    /// The context of `operation` at `place`, its names resolved in `builder`'s scope.
    init(operation: CoreML_Specification_MILSpec_Operation, place: String, builder: ProgramPlan.Builder, limit: Int) {
        self.operation = operation
        self.place = place
        self.limit = limit
        customOperations = builder.customOperations
        var resolved: [String: [ProgramPlan.Argument?]] = [:]
        var declaredTypes: [String: CoreML_Specification_MILSpec_ValueType] = [:]
        for (parameter, argument) in operation.inputs {
            resolved[parameter] = argument.arguments.map { binding in
                if case .name(let name)? = binding.binding { return builder.argument(named: name) }
                return nil
            }
            switch argument.arguments.first?.binding {
            case .name(let name)?: declaredTypes[parameter] = builder.types[name]
            case .value(let value)?: declaredTypes[parameter] = value.type
            case nil: break
            }
        }
        self.resolved = resolved
        self.declaredTypes = declaredTypes
    }

    /// The arguments by parameter name; values bound in place are decoded now.
    ///
    /// - Parameter budget: where a value bound in place reserves its floats (none for a test's own).
    func arguments(_ budget: ProgramPlan.CompileBudget? = nil) throws -> [String: [ProgramPlan.Argument]] {
        var result: [String: [ProgramPlan.Argument]] = [:]
        for (parameter, argument) in operation.inputs {
            result[parameter] = try argument.arguments.enumerated().map { index, binding in
                switch binding.binding {
                case .name(let name)?:
                    guard let found = resolved[parameter]?[index] else {
                        throw EngineError("\(place): input '\(parameter)' reads undefined '\(name)'")
                    }
                    return found
                case .value(let value)?:
                    let at = "\(place), input '\(parameter)'"
                    return .constant(try budget?.decode(value, at: at) ?? MILConstant(value, at: at))
                case nil:
                    throw EngineError("\(place): input '\(parameter)' is bound to nothing")
                }
            }
        }
        return result
    }

    /// The data type the program declares for `parameter`'s (first) argument, nil when it declares
    /// none. Every tensor is float32 while the program runs, so an operation whose meaning depends
    /// on its input's type (a bool mask against a float one) asks here, when it is compiled.
    func declaredDataType(of parameter: String) -> CoreML_Specification_MILSpec_DataType? {
        ProgramPlan.Builder.tensorType(declaredTypes[parameter]).map(\.dataType).flatMap { $0 == .unusedType ? nil : $0 }
    }

    /// The type the program declares for `parameter`'s (first) argument, nil when it declares none.
    func declaredType(of parameter: String) -> CoreML_Specification_MILSpec_ValueType? {
        declaredTypes[parameter]
    }

    func fail(_ message: String) -> EngineError { EngineError("\(place): \(message)") }
}
