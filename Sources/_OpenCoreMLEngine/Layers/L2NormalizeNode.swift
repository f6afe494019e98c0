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
        let x = input.value.pointer, y = output.value.pointer, r = inverseNorms.pointer
        for block in 0..<count {
            let base = block * size
            var sum: Double = 0
            for i in base..<(base + size) { sum += Double(x[i]) * Double(x[i]) }
            let inverse = Float(1 / (sum + Double(epsilon)).squareRoot())
            r[block] = inverse
            for i in base..<(base + size) { y[i] = x[i] * inverse }
        }
    }

    override func backward(batch: Int) {
        guard input.needsGradient else { return }
        let (count, size) = blocks(batch)
        let y = output.value.pointer, dy = output.gradient.pointer, r = inverseNorms.pointer
        setGradient(of: input, count: count * size) { dx in
            // dx = (dy − y·Σ dy·y) / √(Σx² + ε)
            for block in 0..<count {
                let base = block * size
                var dot: Float = 0
                for i in base..<(base + size) { dot += dy[i] * y[i] }
                for i in base..<(base + size) { dx[i] = (dy[i] - y[i] * dot) * r[block] }
            }
        }
    }
}
