import CoreMLSpec

/// Core ML's `flattenTo2D`: the example's exact shape becomes `[∏ dims before axis, ∏ dims from axis on]`
/// (a negative axis counts from the end; `axis` may equal the rank, giving `[count, 1]`). The values
/// are not moved.
final class FlattenTo2DNode: LayerNode, @unchecked Sendable {
    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_FlattenTo2DLayerParams, inputs: [Blob], outputs: [Blob]) throws {
        super.init(spec, inputs: inputs, outputs: outputs)
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
