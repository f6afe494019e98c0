import CoreMLSpec
import Foundation
import _OpenCoreMLKernels

/// Softmax over the channel axis at every position (Core ML's classic `softmax` layer).
/// When it feeds a cross-entropy loss and nothing else, the loss computes the fused gradient
/// and this layer's backward is skipped.
final class SoftmaxNode: LayerNode, @unchecked Sendable {
    /// Set by the network when a cross-entropy loss owns this layer's backward.
    var isFusedWithLoss = false

    override func forward(batch: Int, training: Bool) {
        let (outer, c, h, w) = input.shape.classic
        let x = input.value.pointer, y = output.value.pointer
        if h * w == 1 {
            ocm_softmax_rows(x, y, Int32(batch * outer), Int32(c), Int32(c), Int32(c))
            return
        }
        let plane = h * w
        for block in 0..<(batch * outer) {
            let base = block * c * plane
            for position in 0..<plane {
                var largest = -Float.infinity
                for channel in 0..<c { largest = max(largest, x[base + channel * plane + position]) }
                var sum: Float = 0
                for channel in 0..<c {
                    let e = Foundation.exp(x[base + channel * plane + position] - largest)
                    y[base + channel * plane + position] = e
                    sum += e
                }
                for channel in 0..<c { y[base + channel * plane + position] /= sum }
            }
        }
    }

    override func backward(batch: Int) {
        guard input.needsGradient, !isFusedWithLoss else { return }
        let (outer, c, h, w) = input.shape.classic
        let plane = h * w
        let y = output.value.pointer, dy = output.gradient.pointer
        setGradient(of: input, count: batch * input.shape.count) { dx in
            // dx = y ⊙ (dy − Σ_c dy·y) at every position.
            for block in 0..<(batch * outer) {
                let base = block * c * plane
                for position in 0..<plane {
                    var dot: Float = 0
                    for channel in 0..<c { dot += dy[base + channel * plane + position] * y[base + channel * plane + position] }
                    for channel in 0..<c {
                        let i = base + channel * plane + position
                        dx[i] = y[i] * (dy[i] - dot)
                    }
                }
            }
        }
    }
}
