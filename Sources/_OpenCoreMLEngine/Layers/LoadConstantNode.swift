import CoreMLSpec

/// Core ML's classic `loadConstant`: no inputs; outputs `data` with `shape` `[C, H, W]`.
///
/// Core ML's output has a batch of 1 that later layers broadcast; the engine gives every blob a
/// batch, so the constant is repeated for each example (the same values reach every layer).
/// Nothing upstream can be trained, so there is no backward.
final class LoadConstantNode: LayerNode, @unchecked Sendable {
    let shape: [Int]
    let data: [Float]

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_LoadConstantLayerParams, inputs: [Blob], outputs: [Blob]) throws {
        shape = params.shape.map { Int($0) }
        data = try params.data.floatValues(location: "layer '\(spec.name)' data")
        super.init(spec, inputs: inputs, outputs: outputs)
        guard inputs.isEmpty else { throw fail("loadConstant takes no inputs, \(inputs.count) given") }
        guard shape.count == 3, shape.allSatisfy({ $0 > 0 }) else {
            throw fail("shape \(shape) must be three positive sizes [C, H, W]")
        }
        guard data.count == shape.reduce(1, *) else {
            throw fail("data holds \(data.count) values; shape \(shape) needs \(shape.reduce(1, *))")
        }
    }

    override func inferShapes() throws {
        output.shape = TensorShape(shape)
    }

    override func forward(batch: Int, training: Bool) {
        let y = output.value.pointer
        data.withUnsafeBufferPointer { values in
            for example in 0..<batch { (y + example * values.count).update(from: values.baseAddress!, count: values.count) }
        }
    }
}
