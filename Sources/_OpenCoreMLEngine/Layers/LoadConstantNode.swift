import CoreMLSpec

/// Core ML's classic `loadConstant`: no inputs; outputs `data` with `shape` `[C, H, W]`.
///
/// Core ML's output has a batch of 1 that later layers broadcast; the engine gives every blob a
/// batch, so the constant is repeated for each example (the same values reach every layer).
/// Nothing upstream can be trained, so there is no backward.
final class LoadConstantNode: LayerNode, @unchecked Sendable {
    let data: [Float]

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_LoadConstantLayerParams, inputs: [Blob], outputs: [Blob]) throws {
        data = try Parameter.values("data", of: spec)
        super.init(spec, inputs: inputs, outputs: outputs)
    }

    override func forward(batch: Int, training: Bool) {
        let y = output.value.pointer
        data.withUnsafeBufferPointer { values in
            for example in 0..<batch { (y + example * values.count).update(from: values.baseAddress!, count: values.count) }
        }
    }
}
