import CoreMLSpec

/// Core ML's `softmaxND`: softmax along one axis of the example's exact shape (a negative axis
/// counts from the end). The shape is unchanged.
final class SoftmaxNDNode: LayerNode, LossFusableSoftmax, @unchecked Sendable {
    let axis: Int64
    /// The example viewed as `[outer, length, inner]` around the axis.
    private var outer = 1, length = 1, inner = 1
    /// Set by the network when a cross-entropy loss owns this layer's backward.
    var isFusedWithLoss = false

    override var hasBackward: Bool { true }

    var contiguousLength: Int? { inner == 1 ? length : nil }

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_SoftmaxNDLayerParams, inputs: [Blob], outputs: [Blob]) throws {
        axis = params.axis
        super.init(spec, inputs: inputs, outputs: outputs)
    }

    override func prepareForShapes() throws {
        let shape = input.shape
        let resolved = try resolvedAxis(axis, of: input)
        outer = shape.elementCount(of: 0..<resolved)
        length = shape.dims[resolved]
        inner = shape.elementCount(of: (resolved + 1)..<shape.rank)
    }

    override func forward(batch: Int, training: Bool) {
        Softmax.forward(input.value.pointer, output.value.pointer, blocks: batch * outer, length: length, inner: inner)
    }

    override func backward(batch: Int) {
        guard input.needsGradient, !isFusedWithLoss else { return }
        let y = output.value.pointer, dy = output.gradient.pointer
        let (blocks, length, inner) = (batch * outer, self.length, self.inner)
        setGradient(of: input, count: batch * input.shape.count) { dx in
            Softmax.backward(y: y, dy: dy, dx: dx, blocks: blocks, length: length, inner: inner)
        }
    }
}
