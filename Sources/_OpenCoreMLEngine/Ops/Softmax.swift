import Foundation
import _OpenCoreMLKernels

/// Softmax along one axis, written once for both interpreters: the classic `softmax` (the channel
/// axis) and `softmaxND` (any axis) layers, forward and backward, and the ML Program's `softmax`.
///
/// The tensor is viewed as `blocks` blocks of `[length, inner]` values, the axis having stride
/// `inner`. Each line along the axis is computed stably (its largest value subtracted before
/// `exp`). Over the last axis (`inner` 1) the lines are contiguous rows and run on the C kernel,
/// threaded over rows.
enum Softmax {
    /// `y = softmax(x)` along the axis (y may be x: in place).
    static func forward(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, blocks: Int, length: Int, inner: Int) {
        guard blocks > 0, length > 0, inner > 0 else { return }
        if inner == 1, blocks <= Int(Int32.max), length <= Int(Int32.max) {
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

    /// `dx = y ⊙ (dy − Σ_axis dy·y)` along every line of the axis, `y` the forward output.
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

    /// The `[blocks, length, inner]` view of a tensor of `shape` around `axis` (resolved).
    static func view(_ shape: [Int], axis: Int) -> (blocks: Int, length: Int, inner: Int) {
        var blocks = 1, inner = 1
        for d in 0..<axis { blocks *= shape[d] }
        for d in (axis + 1)..<shape.count { inner *= shape[d] }
        return (blocks, shape[axis], inner)
    }
}
