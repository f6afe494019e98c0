import _OpenCoreMLKernels

/// A named tensor flowing between layers: its values and, during training, its gradient.
package final class Blob: @unchecked Sendable {
    package let name: String
    /// The shape of one example; set when the graph is compiled.
    package internal(set) var shape: TensorShape
    /// `batch × shape.count` values, batch-major.
    package let value = FloatBuffer()
    /// The gradient of the loss with respect to `value` (same layout), during backward.
    package let gradient = FloatBuffer()
    /// Whether backward must compute this blob's gradient (a trainable parameter lies upstream).
    package internal(set) var needsGradient = false
    /// Whether some consumer has already written the gradient in the current backward pass.
    var gradientWritten = false

    init(name: String, shape: TensorShape = TensorShape([])) {
        self.name = name
        self.shape = shape
    }

    /// Set when the layers writing and reading this blob were fused, so it is never filled:
    /// its buffers stay empty.
    package internal(set) var isElided = false

    /// Sizes the buffers for `batch` examples.
    func reserve(batch: Int, training: Bool) {
        guard !isElided else { return }
        value.reserve(batch * shape.count)
        if training && needsGradient { gradient.reserve(batch * shape.count) }
    }

    /// Hands `body` the gradient buffer and whether it must add to it (another consumer wrote first)
    /// rather than overwrite it.
    func writeGradient(_ body: (UnsafeMutablePointer<Float>, _ accumulate: Bool) -> Void) {
        body(gradient.pointer, gradientWritten)
        gradientWritten = true
    }

    /// Lets `body` overwrite the first `count` gradient values; when another consumer wrote them
    /// first, `body` writes into `scratch`, which is then added, so gradients of shared blobs sum.
    func setGradient(count: Int, scratch: FloatBuffer, _ body: (UnsafeMutablePointer<Float>) -> Void) {
        if gradientWritten {
            scratch.reserve(count)
            body(scratch.pointer)
            ocm_axpy(scratch.pointer, gradient.pointer, count, 1)
        } else {
            body(gradient.pointer)
            gradientWritten = true
        }
    }
}
