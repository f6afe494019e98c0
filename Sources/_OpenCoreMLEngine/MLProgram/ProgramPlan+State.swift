import CoreMLSpec

extension ProgramPlan {
    /// A function's state input: its name, declared type, the shape of the tensor it wraps and
    /// whether that tensor is float16.
    struct StateInput {
        let name: String
        let type: CoreML_Specification_MILSpec_ValueType
        let shape: [Int]
        let isHalf: Bool
    }

    /// A function's inputs split into tensors and states (inputs of `state` type, iOS 18). A state
    /// must wrap a tensor of a fixed shape: its buffer lives between predictions, so its size is
    /// known before the first.
    ///
    /// - Throws: `EngineError` naming a state that wraps no tensor, or one whose shape is not fixed.
    static func splitStates(_ inputs: [CoreML_Specification_MILSpec_NamedValueType]) throws
        -> (tensors: [CoreML_Specification_MILSpec_NamedValueType], states: [StateInput]) {
        var tensors: [CoreML_Specification_MILSpec_NamedValueType] = []
        var states: [StateInput] = []
        for input in inputs {
            guard case .stateType(let state)? = input.type.type else {
                tensors.append(input)
                continue
            }
            guard let tensor = Builder.tensorType(state.wrappedType) else {
                throw EngineError("state '\(input.name)' wraps no tensor (Core ML's states are tensors)")
            }
            let shape = try tensor.dimensions.map { dimension -> Int in
                guard case .constant(let size)? = dimension.dimension, size.size <= UInt64(Int32.max) else {
                    throw EngineError("state '\(input.name)' has a dimension that is not a fixed size")
                }
                return Int(size.size)
            }
            _ = try MILTensor.checkedCount(shape, limit: Int(Int32.max), "state '\(input.name)'")
            states.append(StateInput(name: input.name, type: input.type, shape: shape, isHalf: tensor.dataType == .float16))
        }
        return (tensors, states)
    }

    /// Every state zero-filled, as a new state starts (Core ML's `makeState()`).
    package func zeroStates() -> [String: MILTensor] {
        var states: [String: MILTensor] = [:]
        for (name, type) in zip(stateNames, stateTypes) {
            states[name] = MILTensor(shape: type.shape, values: [Float](repeating: 0, count: type.shape.reduce(1, *)))
        }
        return states
    }

    /// The shape of each state's tensor, by name.
    package var stateShapes: [String: [Int]] {
        Dictionary(uniqueKeysWithValues: zip(stateNames, stateTypes.map(\.shape)))
    }

    /// Puts each state's value in its slot.
    ///
    /// - Throws: `EngineError` naming a missing state or one of another shape than declared.
    func placeStates(_ states: [String: MILTensor], in frame: inout Frame) throws {
        for (index, name) in stateNames.enumerated() {
            guard let tensor = states[name] else {
                throw EngineError("state '\(name)' is missing (a stateful program runs with a state made for it)")
            }
            guard tensor.shape == stateTypes[index].shape else {
                throw EngineError("state '\(name)' holds shape \(tensor.shape); the program declares \(stateTypes[index].shape)")
            }
            frame[stateSlots[index]] = tensor
        }
    }

    /// Each state's value after a run, back into `states`.
    func takeStates(_ states: inout [String: MILTensor], from frame: Frame) {
        for (name, slot) in zip(stateNames, stateSlots) {
            if let tensor = frame[slot] { states[name] = tensor }
        }
    }
}
