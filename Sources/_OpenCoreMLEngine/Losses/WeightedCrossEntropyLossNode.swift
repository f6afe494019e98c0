import Foundation

/// Cross-entropy per sequence step, weighted: the input holds a vector of class probabilities at
/// each of `steps` positions (`[steps, classes, 1, 1]` per example), the target one class index per
/// step and the weight blob one weight ≥ 0 per step. Over the batch,
///
///     loss = Σ w · (−log p[label]) / Σ w
///
/// (0 when every weight is 0), so steps of weight 0, such as the zero-padded windows at the end of
/// an activity classifier's last chunk, neither count nor get a gradient, and their labels are not
/// read. As with ``CrossEntropyLossNode``, when the probabilities come from a softmax that nothing
/// else reads, the gradient goes straight to the softmax input: `w (p − onehot) / Σ w`.
final class WeightedCrossEntropyLossNode: LossNode, @unchecked Sendable {
    let weights: Blob
    var fusedSoftmax: (any LossFusableSoftmax)?
    private(set) var steps = 1

    init(name: String, input: Blob, target: Blob, weights: Blob) {
        self.weights = weights
        super.init(name: name, input: input, target: target)
    }

    override func inferShapes() throws {
        let classic = input.shape.classic, outer = classic.outer, h = classic.height, w = classic.width
        guard h * w == 1 else {
            throw fail("input '\(input.name)' has shape \(input.shape); a weighted cross-entropy needs one vector of class probabilities per step")
        }
        steps = outer
        target.shape = TensorShape([outer])
        weights.shape = TensorShape([outer])
    }

    override var gradientBlob: Blob { fusedSoftmax?.input ?? input }

    var classCount: Int { input.shape.classic.channels }

    override func compute(batch: Int) throws -> Float {
        let classes = classCount, rows = batch * steps
        let t = target.value.pointer, w = weights.value.pointer
        var total: Double = 0
        for row in 0..<rows {
            let weight = w[row]
            guard weight.isFinite, weight >= 0 else {
                throw fail("example \(row / steps), step \(row % steps): weight \(weight) is not a finite number ≥ 0")
            }
            guard weight > 0 else { continue }
            let value = t[row]
            guard value.isFinite, value == value.rounded(), value >= 0, Int(value) < classes else {
                throw fail("example \(row / steps), step \(row % steps): target \(value) is not a class index in 0..<\(classes)")
            }
            total += Double(weight)
        }
        let p = input.value.pointer
        let scale = total > 0 ? Float(1 / total) : 0
        var loss: Double = 0
        let blob = fusedSoftmax?.input ?? input
        blob.setGradient(count: rows * classes, scratch: scratch) { dx in
            for row in 0..<rows {
                let probabilities = p + row * classes, gradient = dx + row * classes
                let weight = w[row]
                guard weight > 0 else {
                    gradient.update(repeating: 0, count: classes)
                    continue
                }
                let label = Int(t[row])
                let chosen = max(probabilities[label], .leastNormalMagnitude)
                loss -= Double(weight) * Double(Foundation.log(chosen))
                let factor = weight * scale
                if fusedSoftmax != nil {
                    for k in 0..<classes { gradient[k] = factor * probabilities[k] }
                    gradient[label] -= factor
                } else {
                    gradient.update(repeating: 0, count: classes)
                    gradient[label] = -factor / chosen
                }
            }
        }
        return total > 0 ? Float(loss / total) : 0
    }
}
