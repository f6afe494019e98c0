import CoreMLSpec

/// Core ML's `reshapeStatic`: the same values in row-major order under the shape `targetShape`.
///
/// Batch convention: the engine keeps the batch on its own axis, so `targetShape` describes one
/// example — it must hold as many elements as one input example (under the exact mapping, the
/// shape Core ML itself sees for one prediction; a leading 1 a converter wrote for the batch is
/// simply a dimension of size 1). One entry may be −1: it is inferred from the others.
final class ReshapeStaticNode: LayerNode, @unchecked Sendable {
    let targetShape: [Int64]

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_ReshapeStaticLayerParams, inputs: [Blob], outputs: [Blob]) throws {
        targetShape = params.targetShape
        super.init(spec, inputs: inputs, outputs: outputs)
    }

    override func inferShapes() throws {
        try checkSequenceBlobCounts(inputs: 1...1, outputs: 1...1)
        guard !targetShape.isEmpty else { throw fail("targetShape is empty") }
        let inferred = targetShape.indices.filter { targetShape[$0] == -1 }
        guard inferred.count <= 1, targetShape.allSatisfy({ $0 > 0 || $0 == -1 }) else {
            throw fail("targetShape \(targetShape) must hold positive sizes and at most one −1")
        }
        var dims = targetShape.map(Int.init)
        let count = input.shape.count
        if let slot = inferred.first {
            let known = dims.enumerated().reduce(1) { $1.offset == slot ? $0 : $0 * $1.element }
            guard count % known == 0 else {
                throw fail("cannot infer the −1 of targetShape \(targetShape): input '\(input.name)' (shape \(input.shape)) has \(count) values per example, not a multiple of \(known)")
            }
            dims[slot] = count / known
        }
        let shape = TensorShape(dims)
        guard shape.count == count else {
            throw fail("targetShape \(targetShape) holds \(shape.count) values, but input '\(input.name)' (shape \(input.shape)) has \(count) per example (the target shape describes one example; the batch is kept apart)")
        }
        output.shape = shape
    }

    override func forward(batch: Int, training: Bool) {
        output.value.pointer.update(from: input.value.pointer, count: batch * input.shape.count)
    }

    override func backward(batch: Int) {
        guard input.needsGradient else { return }
        let dy = output.gradient.pointer
        setGradient(of: input, count: batch * input.shape.count) { dx in dx.update(from: dy, count: batch * input.shape.count) }
    }
}
