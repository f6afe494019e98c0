import CoreMLSpec

/// Core ML's `flattenTo2D`: the example's exact shape becomes `[∏ dims before axis, ∏ dims from axis on]`
/// (a negative axis counts from the end; `axis` may equal the rank, giving `[count, 1]`). The values
/// are not moved.
final class FlattenTo2DNode: IndexMapNode, @unchecked Sendable {
    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_FlattenTo2DLayerParams, inputs: [Blob], outputs: [Blob]) throws {
        super.init(spec, inputs: inputs, outputs: outputs)
    }
}
