import CoreMLSpec

/// Core ML's classic `l2normalize`: `y = x / √(Σx² + ε)`, the sum running over the C×H×W values of
/// each example's sequence position. ε defaults to 1e-6 when 0.
final class L2NormalizeNode: LayerNode, @unchecked Sendable {
    let epsilon: Float
    /// 1/√(Σx² + ε) per normalized block, from the last forward pass.
    private let inverseNorms = FloatBuffer()

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_L2NormalizeLayerParams, inputs: [Blob], outputs: [Blob]) {
        epsilon = params.epsilon == 0 ? 1e-6 : params.epsilon
        super.init(spec, inputs: inputs, outputs: outputs)
    }

    private func blocks(_ batch: Int) -> (count: Int, size: Int) {
        let dims = input.shape.classic
        return (batch * dims.outer, dims.channels * dims.plane)
    }

    override func reserve(batch: Int, training: Bool) {
        inverseNorms.reserve(blocks(batch).count)
    }

    override func forward(batch: Int, training: Bool) {
        let (count, size) = blocks(batch)
        Normalization.l2Normalize(input.value.pointer, output.value.pointer, blocks: count, size: size, epsilon: epsilon, inverseNorms: inverseNorms.pointer)
    }

    override var hasBackward: Bool { true }

    override func backward(batch: Int) {
        guard input.needsGradient else { return }
        let (count, size) = blocks(batch)
        let y = output.value.pointer, dy = output.gradient.pointer, r = inverseNorms.pointer
        setGradient(of: input, count: count * size) { dx in
            Normalization.l2NormalizeBackward(y: y, dy: dy, dx: dx, blocks: count, size: size, inverseNorms: r)
        }
    }
}
