import CoreMLSpec

/// iOS 18's states: `read_state` gives a copy of a state's current value, `write_state` writes a
/// value into a state (it has no output), and `coreml_update_state` does both: it writes and gives
/// the value back. (coremltools builds programs with `coreml_update_state` and writes each one
/// into the file as a `write_state` followed by a `read_state`.) A state is a function input of
/// `state` type (see ``ProgramPlan/stateNames``); its slot holds the state's current value while
/// the program runs, and the plan hands the last value back to the caller after the run.
///
/// A float16 state holds float16 values, as Core ML's buffer does: a value written into one is
/// rounded to float16 (the program may compute it in float32 and leave out the cast before).
extension MILOperations {
    static let states: [String: Make] = [
        "read_state": readState,
        "write_state": stateWriter(state: "input", value: "data", returnsValue: false),
        "coreml_update_state": stateWriter(state: "state", value: "value", returnsValue: true),
    ]

    /// The slot of the state a state operation's parameter names; a state is never a constant.
    private static func stateSlot(_ arguments: Arguments, _ name: String, _ context: OperationContext) throws -> Int {
        guard case .slot(let slot) = try argument(arguments, name, context) else {
            throw context.fail("input '\(name)' must be a state (a function input of state type), not a constant")
        }
        return slot
    }

    static let readState: Make = { arguments, outputs, context in
        let state = try stateSlot(arguments, "input", context)
        return { slots in
            guard let current = slots[state] else { throw context.fail("the state has no value") }
            var values = try slots.unfilledBuffer(current.shape, context)
            values.withUnsafeMutableBufferPointer { target in
                current.values.withUnsafeBufferPointer { source in _ = target.update(fromContentsOf: source) }
            }
            slots[outputs[0]] = MILTensor(shape: current.shape, values: values)
        }
    }

    /// A step writing the parameter `value` into the state `state` (rounded to float16 for a
    /// float16 state), and giving it back as the output when `returnsValue`.
    static func stateWriter(state stateParameter: String, value valueParameter: String, returnsValue: Bool) -> Make {
        { arguments, outputs, context in
            let state = try stateSlot(arguments, stateParameter, context)
            let value = try argument(arguments, valueParameter, context)
            var half = false
            if case .stateType(let declared)? = context.declaredType(of: stateParameter)?.type {
                half = ProgramPlan.Builder.tensorType(declared.wrappedType)?.dataType == .float16
            }
            return { [half] slots in
                guard let current = slots[state] else { throw context.fail("the state has no value") }
                let new = fetch(value, slots)
                guard new.shape == current.shape else {
                    throw context.fail("the value has shape \(new.shape); the state holds \(current.shape)")
                }
                var values = try slots.unfilledBuffer(new.shape, context)
                values.withUnsafeMutableBufferPointer { target in
                    new.values.withUnsafeBufferPointer { source in
                        guard let x = source.baseAddress, let y = target.baseAddress else { return }
                        if half {
                            UnaryFunction.roundToHalf.forward(x, y, count: source.count)
                        } else {
                            y.update(from: x, count: source.count)
                        }
                    }
                }
                let written = MILTensor(shape: new.shape, values: values)
                slots[state] = written
                if returnsValue { slots[outputs[0]] = written }
            }
        }
    }
}
