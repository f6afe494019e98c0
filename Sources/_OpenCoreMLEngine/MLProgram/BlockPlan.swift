import CoreMLSpec

/// A nested block compiled once — a branch of `cond`, the condition or body of `while_loop` — and
/// run as often as its operation needs: its inputs are written to its own slots, its steps run,
/// and its outputs are read (from its slots, the enclosing blocks' slots, or constants).
struct BlockPlan {
    let inputSlots: [Int]
    let steps: ProgramPlan.StepList
    let outputs: [ProgramPlan.Argument]
    /// The declared types of the block's inputs and outputs (nil where the program declares none).
    let inputTypes: [CoreML_Specification_MILSpec_ValueType?]
    let outputTypes: [CoreML_Specification_MILSpec_ValueType?]

    /// Runs the block on `inputs` (one per block input, tensors or lists) and returns its outputs.
    func run(_ inputs: [MILValue], _ frame: inout ProgramPlan.Frame) throws -> [MILValue] {
        for (slot, value) in zip(inputSlots, inputs) { frame.setValue(value, at: slot) }
        try steps.run(&frame)
        return outputs.map { frame.value($0) }
    }
}

extension ProgramPlan.Builder {
    /// Blocks nested deeper than this are refused (the protobuf decoder bounds nesting too).
    static let maximumDepth = 32

    /// Compiles `block` in the scope of the names defined so far; the slots it numbers are
    /// counted here too, the names it defines are undone when it ends.
    mutating func compileBlock(_ block: CoreML_Specification_MILSpec_Block, scope: String) throws -> BlockPlan {
        guard depth < Self.maximumDepth else {
            throw EngineError("\(scope)blocks nested more than \(Self.maximumDepth) deep")
        }
        depth += 1
        let mark = scopeMark
        defer {
            endScope(at: mark)
            depth -= 1
        }
        let inputSlots = block.inputs.map { newSlot(named: $0.name, type: $0.type, isInput: true) }
        let steps = try compile(block.operations, outputs: block.outputs, scope: "\(scope): ")
        let outputs = try block.outputs.map { name in
            guard let argument = argument(named: name) else {
                throw EngineError("\(scope): block output '\(name)' is not defined in the block or around it")
            }
            return argument
        }
        return BlockPlan(inputSlots: inputSlots, steps: steps, outputs: outputs,
                         inputTypes: block.inputs.map { $0.hasType ? $0.type : nil },
                         outputTypes: block.outputs.map { types[$0] })
    }
}
