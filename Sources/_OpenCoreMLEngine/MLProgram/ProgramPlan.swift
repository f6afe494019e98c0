import CoreMLSpec

/// An ML Program's `main` function compiled once: constants decoded, compressed weights
/// decompressed (the `constexpr_` operations, see ``MILConstexprOperations``), every other
/// operation resolved to a step that reads and writes numbered slots, an unsupported operation
/// refused at compile time.
/// Run it with the function's inputs by name; it returns the block's outputs by name.
///
/// Every tensor is computed in float32, float16 programs too (their `cast` to fp16 rounds values
/// to half precision, so results stay within float16's precision of Core ML's). No tensor an
/// operation makes may hold more than an eighth of `memoryLimit` bytes' worth of floats (a step and
/// its inputs stay within the limit), no decompressed weight more than the whole limit; a larger one
/// is an error, never an allocation.
package final class ProgramPlan: @unchecked Sendable {
    /// Where a step reads an argument: a slot filled while running, or a constant.
    enum Argument {
        case slot(Int)
        case constant(MILConstant)
    }

    typealias Step = (inout [MILTensor?]) throws -> Void

    package let inputNames: [String]
    package let outputNames: [String]
    private let inputSlots: [Int]
    private let outputSlots: [Int]
    private let slotCount: Int
    private let steps: [Step]

    /// Compiles `program`'s `main` function.
    ///
    /// - Throws: `MILProgramError` naming the first operation that cannot run (its type, or the
    ///   input whose value is not supported).
    package init(program: CoreML_Specification_MILSpec_Program, memoryLimit: Int) throws {
        guard let function = program.functions[CoreML_Specification_MILSpec_Program.mainFunctionName],
              let block = function.blockSpecializations[function.opset] else {
            throw MILProgramError("the program has no 'main' function with a body for its opset")
        }
        var builder = Builder()
        inputNames = function.inputs.map(\.name)
        inputSlots = inputNames.map { builder.newSlot(named: $0) }
        var steps: [Step] = []
        for (index, operation) in block.operations.enumerated() {
            let place = "operation \(index) (\(operation.type) → \(operation.outputs.first?.name ?? "?"))"
            if !operation.blocks.isEmpty {
                throw MILProgramError("\(place): control flow (nested blocks) is not supported yet")
            }
            if operation.type == "const" {
                guard let value = operation.attributes["val"], let name = operation.outputs.first?.name else {
                    throw MILProgramError("\(place): a const without a value")
                }
                builder.constants[name] = try MILConstant(value, at: place)
                continue
            }
            if operation.type.hasPrefix("constexpr_") {
                // Deliberately unlike Core ML, which may keep compressed weights compressed in memory: each is decompressed to float32 once, here.
                let values = try MILConstexprOperations.evaluate(operation, constants: builder.constants, place: place,
                                                                 limit: max(memoryLimit / MemoryLayout<Float>.size, 1))
                for (output, tensor) in zip(operation.outputs, values) { builder.constants[output.name] = .tensor(tensor) }
                continue
            }
            guard let make = MILOperations.table[operation.type] else {
                throw MILProgramError("\(place): operation type '\(operation.type)' is not supported yet")
            }
            guard operation.outputs.count == 1 || (MILOperations.multipleOutputs.contains(operation.type) && !operation.outputs.isEmpty) else {
                throw MILProgramError("\(place): \(operation.outputs.count) outputs; '\(operation.type)' has one")
            }
            let context = OperationContext(operation: operation, place: place, builder: builder, limit: max(memoryLimit / 8 / MemoryLayout<Float>.size, 1))
            let arguments = try context.arguments()
            let outputs = operation.outputs.map { builder.newSlot(named: $0.name) }
            steps.append(try make(arguments, outputs, context))
        }
        outputNames = block.outputs
        outputSlots = try block.outputs.map { name in
            guard let slot = builder.slots[name] else { throw MILProgramError("output '\(name)' is a constant or undefined") }
            return slot
        }
        slotCount = builder.slotCount
        self.steps = steps
    }

    /// Runs the program on `inputs` (one tensor per function input).
    ///
    /// - Throws: `MILProgramError` for a missing input or shapes an operation cannot take.
    package func run(_ inputs: [String: MILTensor]) throws -> [String: MILTensor] {
        var slots = [MILTensor?](repeating: nil, count: slotCount)
        for (name, slot) in zip(inputNames, inputSlots) {
            guard let tensor = inputs[name] else { throw MILProgramError("input '\(name)' is missing") }
            slots[slot] = tensor
        }
        for step in steps { try step(&slots) }
        var outputs: [String: MILTensor] = [:]
        for (name, slot) in zip(outputNames, outputSlots) { outputs[name] = slots[slot] }
        return outputs
    }

    struct Builder {
        var slots: [String: Int] = [:]
        var constants: [String: MILConstant] = [:]
        var slotCount = 0

        mutating func newSlot(named name: String) -> Int {
            defer { slotCount += 1 }
            slots[name] = slotCount
            return slotCount
        }
    }
}

/// What an operation's compiler needs: its arguments by parameter name, constants decoded.
struct OperationContext {
    let operation: CoreML_Specification_MILSpec_Operation
    let place: String
    let builder: ProgramPlan.Builder
    /// The most values one tensor may hold.
    let limit: Int

    /// A zero-filled buffer for a tensor of `shape`, checked against the limit.
    func buffer(_ shape: [Int]) throws -> [Float] {
        [Float](repeating: 0, count: try MILTensor.checkedCount(shape, limit: limit, place))
    }

    func arguments() throws -> [String: [ProgramPlan.Argument]] {
        var result: [String: [ProgramPlan.Argument]] = [:]
        for (parameter, argument) in operation.inputs {
            result[parameter] = try argument.arguments.map { binding in
                switch binding.binding {
                case .name(let name)?:
                    if let constant = builder.constants[name] { return .constant(constant) }
                    guard let slot = builder.slots[name] else { throw MILProgramError("\(place): input '\(parameter)' reads undefined '\(name)'") }
                    return .slot(slot)
                case .value(let value)?:
                    return .constant(try MILConstant(value, at: "\(place), input '\(parameter)'"))
                case nil:
                    throw MILProgramError("\(place): input '\(parameter)' is bound to nothing")
                }
            }
        }
        return result
    }

    func fail(_ message: String) -> MILProgramError { MILProgramError("\(place): \(message)") }
}
