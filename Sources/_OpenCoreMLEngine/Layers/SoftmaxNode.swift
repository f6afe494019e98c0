import CoreMLSpec

/// Softmax over the channel axis at every position (Core ML's classic `softmax` layer).
/// When it feeds a cross-entropy loss and nothing else, the loss computes the fused gradient
/// and this layer's backward is skipped.
final class SoftmaxNode: LayerNode, @unchecked Sendable {
    /// Set by the network when a cross-entropy loss owns this layer's backward.
    var isFusedWithLoss = false

    override func forward(batch: Int, training: Bool) {
        let classic = input.shape.classic, outer = classic.outer, c = classic.channels, h = classic.height, w = classic.width
        Softmax.forward(input.value.pointer, output.value.pointer, blocks: batch * outer, length: c, inner: h * w)
    }

    override func backward(batch: Int) {
        guard input.needsGradient, !isFusedWithLoss else { return }
        let classic = input.shape.classic, outer = classic.outer, c = classic.channels, h = classic.height, w = classic.width
        let y = output.value.pointer, dy = output.gradient.pointer
        setGradient(of: input, count: batch * input.shape.count) { dx in
            Softmax.backward(y: y, dy: dy, dx: dx, blocks: batch * outer, length: c, inner: h * w)
        }
    }
}
