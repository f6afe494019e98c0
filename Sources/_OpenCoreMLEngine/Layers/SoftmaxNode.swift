import CoreMLSpec

/// Softmax over the channel axis (−3) at every position (Core ML's classic `softmax` layer; the
/// layer table requires rank 3 or more).
/// When it feeds a cross-entropy loss and nothing else, the loss computes the fused gradient
/// and this layer's backward is skipped.
final class SoftmaxNode: LayerNode, LossFusableSoftmax, @unchecked Sendable {
    /// Set by the network when a cross-entropy loss owns this layer's backward.
    var isFusedWithLoss = false

    override var hasBackward: Bool { true }

    var contiguousLength: Int? {
        let classic = input.shape.classic
        return classic.plane == 1 ? classic.channels : nil
    }

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

/// A softmax layer whose backward a cross-entropy loss can take over (the loss then writes
/// `p − onehot` straight into the softmax's input): classic `softmax` and `softmaxND`.
protocol LossFusableSoftmax: LayerNode {
    /// Set by the network when a cross-entropy loss owns this layer's backward.
    var isFusedWithLoss: Bool { get set }
    /// The length of each normalized vector when those vectors lie contiguously in memory (the
    /// normalized axis is the last non-1 one), else nil: only then can a loss fuse with it.
    var contiguousLength: Int? { get }
}
