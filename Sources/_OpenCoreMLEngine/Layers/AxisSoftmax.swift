import Foundation
import _OpenCoreMLKernels

/// Softmax along one axis of `blocks` blocks of `[length, inner]` values (the axis has stride
/// `inner`), forward and backward: what the classic `softmax` (the channel axis) and `softmaxND`
/// (any axis) share.
enum AxisSoftmax {
    static func forward(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, blocks: Int, length: Int, inner: Int) {
        if inner == 1 {
            ocm_softmax_rows(x, y, Int32(blocks), Int32(length), Int32(length), Int32(length))
            return
        }
        for block in 0..<blocks {
            let base = block * length * inner
            for position in 0..<inner {
                var largest = -Float.infinity
                for i in 0..<length { largest = max(largest, x[base + i * inner + position]) }
                var sum: Float = 0
                for i in 0..<length {
                    let e = Foundation.exp(x[base + i * inner + position] - largest)
                    y[base + i * inner + position] = e
                    sum += e
                }
                for i in 0..<length { y[base + i * inner + position] /= sum }
            }
        }
    }

    /// `dx = y ⊙ (dy − Σ_axis dy·y)` along every line of the axis.
    static func backward(
        y: UnsafePointer<Float>, dy: UnsafePointer<Float>, dx: UnsafeMutablePointer<Float>, blocks: Int, length: Int, inner: Int
    ) {
        for block in 0..<blocks {
            let base = block * length * inner
            for position in 0..<inner {
                var dot: Float = 0
                for i in 0..<length { dot += dy[base + i * inner + position] * y[base + i * inner + position] }
                for i in 0..<length {
                    let index = base + i * inner + position
                    dx[index] = y[index] * (dy[index] - dot)
                }
            }
        }
    }
}
