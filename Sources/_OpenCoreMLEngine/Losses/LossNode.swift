import CoreMLSpec

/// A loss layer: compares a blob with a training target, returns the batch's loss and writes the
/// loss gradient into the blob (or, for a fused softmax + cross-entropy, into the softmax's input).
class LossNode: @unchecked Sendable {
    let name: String
    let input: Blob
    /// The training input holding the targets, filled by the caller with every batch.
    let target: Blob
    let scratch = FloatBuffer()

    init(name: String, input: Blob, target: Blob) {
        self.name = name
        self.input = input
        self.target = target
    }

    /// Sets the target blob's shape from the input's and checks they fit.
    func inferShapes() throws {}

    /// The blob whose gradient this loss writes (the input, or the softmax input when fused).
    var gradientBlob: Blob { input }

    /// The mean loss over `batch` examples; writes the gradient of that mean.
    func compute(batch: Int) throws -> Float { 0 }

    func fail(_ message: String) -> EngineError {
        EngineError("loss layer '\(name)'", message)
    }
}
