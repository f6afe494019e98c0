/// Mean squared error against a target of the input's shape: the mean of `(x − t)²` over every
/// element of the batch (as Keras and PyTorch define it).
final class MeanSquaredErrorLossNode: LossNode, @unchecked Sendable {
    override func inferShapes() throws {
        if target.shape.count != input.shape.count {
            throw fail("target '\(target.name)' has \(target.shape.count) values per example, input '\(input.name)' has \(input.shape.count)")
        }
    }

    override func compute(batch: Int) throws -> Float {
        let n = batch * input.shape.count
        let x = input.value.pointer, t = target.value.pointer
        for index in 0..<n where !t[index].isFinite {
            throw fail("example \(index / input.shape.count): target '\(target.name)' holds \(t[index])")
        }
        var sum: Double = 0
        let scale = 2 / Float(n)
        input.setGradient(count: n, scratch: scratch) { dx in
            for index in 0..<n {
                let difference = x[index] - t[index]
                sum += Double(difference * difference)
                dx[index] = scale * difference
            }
        }
        return Float(sum / Double(n))
    }
}
