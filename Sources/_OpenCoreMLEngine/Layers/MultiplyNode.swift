import CoreMLSpec
import _OpenCoreMLKernels

/// Core ML's classic `multiply`: the elementwise product of its inputs, or `alpha·x` for a single
/// input.
///
/// Inputs broadcast over the classic axes `[outer, C, H, W]` exactly as in `AddNode` (each axis 1
/// or the largest size). Core ML documents the output as having the first input's shape; here it
/// has the broadcast (largest) shape, which is the same whenever the first input is the largest.
final class MultiplyNode: LayerNode, @unchecked Sendable {
    let alpha: Float
    private var broadcasts: [ClassicBroadcast] = []
    /// The product of the other inputs times the output gradient (backward scratch).
    private let product = FloatBuffer()

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_MultiplyLayerParams, inputs: [Blob], outputs: [Blob]) throws {
        alpha = params.alpha
        super.init(spec, inputs: inputs, outputs: outputs)
    }

    override func prepareForShapes() throws {
        broadcasts = try ClassicElementwiseBroadcast.broadcasts(of: self)
    }

    override func reserve(batch: Int, training: Bool) {
        if training && inputs.count > 1 { product.reserve(batch * output.shape.count) }
    }

    override func forward(batch: Int, training: Bool) {
        let y = output.value.pointer
        if inputs.count == 1 {
            ocm_scale(input.value.pointer, y, batch * output.shape.count, alpha)
            return
        }
        broadcasts[0].assign(inputs[0].value.pointer, to: y, batch: batch)
        for (input, broadcast) in zip(inputs, broadcasts).dropFirst() {
            broadcast.multiply(input.value.pointer, into: y, batch: batch)
        }
    }

    override var hasBackward: Bool { true }

    override func backward(batch: Int) {
        let dy = output.gradient.pointer
        let n = batch * output.shape.count
        if inputs.count == 1 {
            guard input.needsGradient else { return }
            setGradient(of: input, count: n) { dx in ocm_scale(dy, dx, n, alpha) }
            return
        }
        for (index, (input, broadcast)) in zip(inputs, broadcasts).enumerated() where input.needsGradient {
            // ∂y/∂x_i is the product of the other inputs (recomputed, so zeros need no care).
            let p = product.pointer
            p.update(from: dy, count: n)
            for (other, otherBroadcast) in zip(inputs, broadcasts).enumerated().filter({ $0.offset != index }).map(\.element) {
                otherBroadcast.multiply(other.value.pointer, into: p, batch: batch)
            }
            let count = batch * input.shape.count
            setGradient(of: input, count: count) { dx in
                broadcast.reduce(p, into: dx, sourceCount: count, batch: batch)
            }
        }
    }
}
