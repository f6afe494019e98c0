import CoreMLSpec
import _OpenCoreMLKernels

/// Core ML's classic `scale`: `y = s ⊙ x (+ b)` with a scale and an optional bias each of shape
/// `[1]`, `[C]`, `[1, H, W]` or `[C, H, W]`, repeated over the other axes. Both are trainable.
final class ScaleNode: LayerNode, @unchecked Sendable {
    let scaleShape: [UInt64], biasShape: [UInt64]
    let scale: Parameter
    let bias: Parameter?
    private var scaleBroadcast: ClassicBroadcast?, biasBroadcast: ClassicBroadcast?
    /// Backward scratch: the output gradient times the input (or the scale).
    private let scratch = FloatBuffer()

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_ScaleLayerParams, inputs: [Blob], outputs: [Blob]) throws {
        scaleShape = params.shapeScale
        biasShape = params.shapeBias
        scale = try Parameter.required("scale", of: spec)
        bias = try Parameter.optional("bias", of: spec)
        super.init(spec, inputs: inputs, outputs: outputs)
        parameters = [scale] + (bias.map { [$0] } ?? [])
    }

    override func prepareForShapes() throws {
        scaleBroadcast = try parameterBroadcast("scale", scale, declared: scaleShape)
        if let bias { biasBroadcast = try parameterBroadcast("bias", bias, declared: biasShape) }
    }

    override func reserve(batch: Int, training: Bool) {
        if training { scratch.reserve(batch * input.shape.count) }
    }

    override func forward(batch: Int, training: Bool) {
        let y = output.value.pointer
        y.update(from: input.value.pointer, count: batch * input.shape.count)
        scaleBroadcast!.multiply(scale.value.pointer, into: y, batch: batch)
        if let bias { biasBroadcast!.add(bias.value.pointer, to: y, batch: batch) }
    }

    override var hasBackward: Bool { true }

    override func backward(batch: Int) {
        let dy = output.gradient.pointer
        let n = batch * input.shape.count
        if scale.isTrainable {
            ocm_mul(dy, input.value.pointer, scratch.pointer, n)
            scaleBroadcast!.reduce(scratch.pointer, into: scale.gradient.pointer, sourceCount: scale.count, batch: batch)
        }
        if let bias, bias.isTrainable {
            biasBroadcast!.reduce(dy, into: bias.gradient.pointer, sourceCount: bias.count, batch: batch)
        }
        guard input.needsGradient else { return }
        setGradient(of: input, count: n) { dx in
            dx.update(from: dy, count: n)
            scaleBroadcast!.multiply(scale.value.pointer, into: dx, batch: batch)
        }
    }

    override func store(in spec: inout CoreML_Specification_NeuralNetworkLayer) {
        guard case .scale(var params)? = spec.layer else { return }
        scale.store(in: &params.scale)
        bias?.store(in: &params.bias)
        spec.scale = params
    }
}
