import Foundation
import _OpenCoreMLKernels

/// Categorical cross-entropy of class probabilities against a class index per example:
/// `loss = −(1/N) Σ log p[label]`. The input must be a softmax output; when nothing else uses the
/// probabilities, the gradient goes straight to the softmax input as `(p − onehot) / N`.
final class CrossEntropyLossNode: LossNode, @unchecked Sendable {
    /// The softmax (classic or softmaxND) that produces the input, when the loss owns its backward.
    var fusedSoftmax: (any LossFusableSoftmax)?
    private let labels = Int32Buffer()

    override func inferShapes() throws {
        // One vector per example, of any rank: `[C, 1, 1]`, `[1, C]`, `[1, C, 1, 1]`, `[C]`, …
        guard input.shape.dims.filter({ $0 != 1 }).count <= 1 else {
            throw fail("input '\(input.name)' has shape \(input.shape); cross-entropy needs one vector of class probabilities per example (all dimensions but one of size 1)")
        }
        target.shape = TensorShape([1])
    }

    override var gradientBlob: Blob { fusedSoftmax?.input ?? input }

    var classCount: Int { input.shape.count }

    override func compute(batch: Int) throws -> Float {
        labels.reserve(batch)
        let classes = classCount
        let t = target.value.pointer
        for example in 0..<batch {
            let value = t[example]
            guard value.isFinite, value == value.rounded(), value >= 0, Int(value) < classes else {
                throw fail("example \(example): target \(value) is not a class index in 0..<\(classes)")
            }
            labels.pointer[example] = Int32(value)
        }
        let probabilities = input.value.pointer
        if let fusedSoftmax {
            var loss: Float = 0
            fusedSoftmax.input.setGradient(count: batch * classes, scratch: scratch) { dx in
                loss = ocm_softmax_cross_entropy_backward(probabilities, labels.pointer, dx, Int32(batch), Int32(classes), Int32(classes))
            }
            return loss
        }
        var loss: Double = 0
        input.setGradient(count: batch * classes, scratch: scratch) { dp in
            dp.update(repeating: 0, count: batch * classes)
            for example in 0..<batch {
                let index = example * classes + Int(labels.pointer[example])
                let p = max(probabilities[index], .leastNormalMagnitude)
                loss -= Double(Foundation.log(p))
                dp[index] = -1 / (Float(batch) * p)
            }
        }
        return Float(loss / Double(batch))
    }
}
