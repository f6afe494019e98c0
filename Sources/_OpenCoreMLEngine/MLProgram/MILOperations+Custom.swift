/// An operation the app supplies rather than the interpreter: what a classic network's `custom`
/// layer computes, given to ``ProgramPlan`` by the layer's name (OpenCoreML adapts Core ML's
/// `MLCustomLayer` to it). Steps call it with the values of one prediction.
package protocol CustomOperation: Sendable {
    /// The shapes of the outputs for inputs of `inputShapes`, one per output.
    func outputShapes(_ inputShapes: [[Int]]) throws -> [[Int]]
    /// Fills `outputs` (zero-filled, of the shapes ``outputShapes(_:)`` gave) from `inputs`.
    func evaluate(_ inputs: [MILTensor], _ outputs: inout [MILTensor]) throws
}

extension MILOperations {
    /// `custom_layer(x: [values], layer: name)`: OpenCoreML's own operation for a classic `custom`
    /// layer (not a MIL operation): the ``CustomOperation`` the plan was given for `layer` computes
    /// the outputs. Its output shapes are asked for at every run (inputs may have flexible shapes)
    /// and checked against the memory limit before the buffers are made.
    static let custom: [String: Make] = [
        "custom_layer": { arguments, outputs, context in
            let layer = try constantString(arguments, "layer", context) ?? ""
            guard let operation = context.customOperations[layer] else {
                throw context.fail("custom layer '\(layer)' has no implementation")
            }
            let inputs = arguments["x"] ?? []
            return { slots in
                let values = inputs.map { fetch($0, slots) }
                let shapes = try operation.outputShapes(values.map(\.shape))
                guard shapes.count == outputs.count else {
                    throw context.fail("the custom layer gives \(shapes.count) output shapes for its \(outputs.count) outputs")
                }
                var results = try shapes.map { MILTensor(shape: $0, values: try context.buffer($0)) }
                try operation.evaluate(values, &results)
                for (index, (slot, result)) in zip(outputs, results).enumerated() {
                    // The implementation may have replaced a tensor: its shape must still hold its values.
                    guard result.shape == shapes[index], result.values.count == result.shape.reduce(1, *) else {
                        throw context.fail("the custom layer's output \(index) changed from shape \(shapes[index]) to \(result.shape)")
                    }
                    slots[slot] = result
                }
            }
        },
    ]
}
