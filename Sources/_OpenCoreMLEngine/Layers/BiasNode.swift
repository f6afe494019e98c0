import CoreMLSpec
import _OpenCoreMLKernels

/// Core ML's classic `bias`: adds a bias of shape `[1]`, `[C]`, `[1, H, W]` or `[C, H, W]`,
/// repeated over the other axes (sequence positions and examples). The bias is trainable.
final class BiasNode: LayerNode, @unchecked Sendable {
    let shape: [UInt64]
    let bias: Parameter
    private var broadcast: ClassicBroadcast?

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_BiasLayerParams, inputs: [Blob], outputs: [Blob]) throws {
        shape = params.shape
        bias = try Parameter.required("bias", of: spec)
        super.init(spec, inputs: inputs, outputs: outputs)
        parameters = [bias]
    }

    override func prepareForShapes() throws {
        broadcast = try parameterBroadcast("bias", bias, declared: shape)
    }

    override func forward(batch: Int, training: Bool) {
        output.value.pointer.update(from: input.value.pointer, count: batch * input.shape.count)
        broadcast!.add(bias.value.pointer, to: output.value.pointer, batch: batch)
    }

    override var hasBackward: Bool { true }

    override func backward(batch: Int) {
        let dy = output.gradient.pointer
        if bias.isTrainable { broadcast!.reduce(dy, into: bias.gradient.pointer, sourceCount: bias.count, batch: batch) }
        guard input.needsGradient else { return }
        let n = batch * input.shape.count
        setGradient(of: input, count: n) { dx in dx.update(from: dy, count: n) }
    }

    override func store(in spec: inout CoreML_Specification_NeuralNetworkLayer) {
        guard case .bias(var params)? = spec.layer else { return }
        bias.store(in: &params.bias)
        spec.bias = params
    }
}
