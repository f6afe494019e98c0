import CoreMLSpec

/// Flattens C×H×W into C·H·W×1×1 per sequence position, channel-first (a copy) or channel-last
/// (H, W, C order).
final class FlattenNode: LayerNode, @unchecked Sendable {
    let channelLast: Bool

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_FlattenLayerParams, inputs: [Blob], outputs: [Blob]) {
        channelLast = params.mode == .channelLast
        super.init(spec, inputs: inputs, outputs: outputs)
    }

    override func forward(batch: Int, training: Bool) {
        let (outer, c, h, w) = input.shape.classic
        let x = input.value.pointer, y = output.value.pointer
        guard channelLast, h * w > 1 else {
            y.update(from: x, count: batch * input.shape.count)
            return
        }
        let plane = h * w
        for block in 0..<(batch * outer) {
            let base = block * c * plane
            for position in 0..<plane {
                for channel in 0..<c { y[base + position * c + channel] = x[base + channel * plane + position] }
            }
        }
    }

    override func backward(batch: Int) {
        guard input.needsGradient else { return }
        let (outer, c, h, w) = input.shape.classic
        let dy = output.gradient.pointer
        setGradient(of: input, count: batch * input.shape.count) { dx in
            guard channelLast, h * w > 1 else {
                dx.update(from: dy, count: batch * input.shape.count)
                return
            }
            let plane = h * w
            for block in 0..<(batch * outer) {
                let base = block * c * plane
                for position in 0..<plane {
                    for channel in 0..<c { dx[base + channel * plane + position] = dy[base + position * c + channel] }
                }
            }
        }
    }
}
