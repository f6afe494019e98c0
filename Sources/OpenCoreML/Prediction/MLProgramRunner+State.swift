import Foundation
import _OpenCoreMLEngine

extension MLProgramRunner {
    /// Runs the program on `inputs`; a stateful program reads its states from `state` and leaves
    /// their new values there.
    ///
    /// - Throws: ``MLModelError`` naming the states when the program has some and `state` is nil
    ///   (as Core ML refuses a stateful prediction without a state), or the engine's error.
    func run(_ inputs: [String: MILTensor], state: MLState?) throws -> [String: MILTensor] {
        let names = plan.stateNames
        guard !names.isEmpty else { return try Self.engine { try plan.run(inputs) } }
        guard let state else {
            throw MLModelError(.generic, "the model reads and writes states (\(names.map { "'\($0)'" }.joined(separator: ", "))): "
                + "predict with a state made by makeState(), prediction(from:using:)")
        }
        return try state.updating(names) { buffers in
            var tensors: [String: MILTensor] = [:]
            for (name, buffer) in buffers { tensors[name] = MILTensor(shape: buffer.shape, values: buffer.values) }
            let outputs = try Self.engine { try plan.run(inputs, states: &tensors) }
            for (name, tensor) in tensors { buffers[name] = (tensor.shape, tensor.values) }
            return outputs
        }
    }
}
