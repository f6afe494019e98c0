import CoreMLSpec

/// Control flow: `cond` runs one of its two blocks (true, false) as its boolean `pred` says;
/// `while_loop` runs its body block on its loop variables while its condition block yields true.
/// Both blocks of each are compiled once, when the operation is; each run counts its iterations
/// and the work done inside loops against the plan's limits (see
/// ``ProgramPlan/Frame/countIteration(at:)`` and ``ProgramPlan/Frame/countWork(_:at:)``).
///
/// What is checked when the operation is compiled: the number of blocks, that the blocks take and
/// yield as many values as the operation binds and outputs, and, where the program declares types,
/// that `pred` and the loop condition are booleans and the body yields each loop variable's data
/// type and rank. When it runs: that `pred` and the condition hold exactly one value.
extension ProgramPlan.Builder {
    mutating func compileCond(_ operation: CoreML_Specification_MILSpec_Operation, at place: String) throws -> ProgramPlan.Step {
        try reservations.reserve(ProgramPlan.stepBytes, for: place)
        let context = context(for: operation, at: place)
        guard operation.blocks.count == 2 else {
            throw context.fail("cond holds \(operation.blocks.count) blocks; it needs two (the true branch, then the false one)")
        }
        let arguments = try context.arguments(reservations)
        let pred = try MILOperations.argument(arguments, "pred", context)
        if let name = operation.inputs["pred"]?.arguments.first?.name, let type = Self.tensorType(types[name]), type.dataType != .bool {
            throw context.fail("pred '\(name)' is \(type.dataType), not bool")
        }
        var branches: [BlockPlan] = []
        for (index, block) in operation.blocks.enumerated() {
            let branch = try compileBlock(block, scope: "\(place), \(index == 0 ? "true" : "false") branch")
            guard branch.inputSlots.isEmpty else {
                throw context.fail("the \(index == 0 ? "true" : "false") branch takes \(branch.inputSlots.count) inputs; a cond branch takes none")
            }
            guard branch.outputs.count == operation.outputs.count else {
                throw context.fail("the \(index == 0 ? "true" : "false") branch yields \(branch.outputs.count) values for \(operation.outputs.count) outputs")
            }
            branches.append(branch)
        }
        let outputs = operation.outputs.map { newSlot(named: $0.name, type: $0.type) }
        return { [branches] frame in
            let condition = MILOperations.fetch(pred, frame)
            guard condition.count == 1 else {
                throw context.fail("pred holds \(condition.count) values (shape \(condition.shape)); cond needs one boolean")
            }
            let results = try branches[condition.values[0] != 0 ? 0 : 1].run([], &frame)
            for (slot, value) in zip(outputs, results) { frame.setValue(value, at: slot) }
        }
    }

    mutating func compileWhileLoop(_ operation: CoreML_Specification_MILSpec_Operation, at place: String) throws -> ProgramPlan.Step {
        try reservations.reserve(ProgramPlan.stepBytes, for: place)
        let context = context(for: operation, at: place)
        guard operation.blocks.count == 2 else {
            throw context.fail("while_loop holds \(operation.blocks.count) blocks; it needs two (the condition, then the body)")
        }
        let arguments = try context.arguments(reservations)
        guard let loopVariables = arguments["loop_vars"], !loopVariables.isEmpty else {
            throw context.fail("while_loop needs loop_vars")
        }
        let count = loopVariables.count
        guard operation.outputs.count == count else {
            throw context.fail("\(operation.outputs.count) outputs for \(count) loop variables")
        }
        let condition = try compileBlock(operation.blocks[0], scope: "\(place), condition")
        let body = try compileBlock(operation.blocks[1], scope: "\(place), body")
        guard condition.inputSlots.count == count, condition.outputs.count == 1 else {
            throw context.fail("the condition block takes \(condition.inputSlots.count) inputs and yields \(condition.outputs.count) values; it must take the \(count) loop variables and yield one boolean")
        }
        if let type = Self.tensorType(condition.outputTypes[0] ?? nil), type.dataType != .bool {
            throw context.fail("the condition block yields \(type.dataType), not bool")
        }
        guard body.inputSlots.count == count, body.outputs.count == count else {
            throw context.fail("the body block takes \(body.inputSlots.count) inputs and yields \(body.outputs.count) values; it must take and yield the \(count) loop variables")
        }
        for index in 0..<count {
            guard let declared = Self.tensorType(body.inputTypes[index] ?? nil), let yielded = Self.tensorType(body.outputTypes[index] ?? nil) else { continue }
            guard declared.dataType == yielded.dataType, declared.rank == yielded.rank else {
                throw context.fail("the body yields \(yielded.dataType) of rank \(yielded.rank) for loop variable \(index), which is \(declared.dataType) of rank \(declared.rank)")
            }
        }
        let outputs = operation.outputs.map { newSlot(named: $0.name, type: $0.type) }
        return { frame in
            // Loop variables may be lists (``MILList``) as well as tensors.
            var values = loopVariables.map { frame.value($0) }
            // Work inside the loop counts against the run's loop work limit.
            frame.loopDepth += 1
            defer { frame.loopDepth -= 1 }
            while true {
                guard case .tensor(let test) = try condition.run(values, &frame)[0] else {
                    throw context.fail("the condition block yields a list; it must yield one boolean")
                }
                guard test.count == 1 else {
                    throw context.fail("the condition block yields \(test.count) values (shape \(test.shape)); it must yield one boolean")
                }
                guard test.values[0] != 0 else { break }
                try frame.countIteration(at: place)
                values = try body.run(values, &frame)
            }
            for (slot, value) in zip(outputs, values) { frame.setValue(value, at: slot) }
        }
    }

    /// The tensor type a value declares, if it declares one.
    static func tensorType(_ type: CoreML_Specification_MILSpec_ValueType?) -> CoreML_Specification_MILSpec_TensorType? {
        if case .tensorType(let tensor)? = type?.type { return tensor }
        return nil
    }
}
