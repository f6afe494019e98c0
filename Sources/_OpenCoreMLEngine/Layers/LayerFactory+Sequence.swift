import CoreMLSpec

extension LayerFactory {
    /// Embedding, recurrent and rank-N layers; nil for other types.
    static func makeSequenceOrNDNode(_ spec: CoreML_Specification_NeuralNetworkLayer, inputs: [Blob], outputs: [Blob]) throws -> LayerNode? {
        switch spec.layer {
        case .embedding(let p)?: return try EmbeddingNode(spec, p, inputs: inputs, outputs: outputs)
        case .uniDirectionalLstm(let p)?: return try LSTMNode(spec, p, inputs: inputs, outputs: outputs)
        case .softmaxNd(let p)?: return try SoftmaxNDNode(spec, p, inputs: inputs, outputs: outputs)
        case .concatNd(let p)?: return try ConcatNDNode(spec, p, inputs: inputs, outputs: outputs)
        case .flattenTo2D(let p)?: return try FlattenTo2DNode(spec, p, inputs: inputs, outputs: outputs)
        case .reshapeStatic(let p)?: return try ReshapeStaticNode(spec, p, inputs: inputs, outputs: outputs)
        case .batchedMatmul(let p)?: return try BatchedMatMulNode(spec, p, inputs: inputs, outputs: outputs)
        default: return nil
        }
    }
}

extension LayerNode {
    /// `axis` of `blob`'s exact shape, counted from the end when negative (the layer table has
    /// checked that it lies inside).
    func resolvedAxis(_ axis: Int64, of blob: Blob) throws -> Int {
        guard let resolved = CoreML_Specification_NeuralNetworkLayer.resolvedAxis(axis, rank: blob.shape.rank) else {
            throw fail("axis \(axis) is outside the \(blob.shape.rank) dimensions of input '\(blob.name)' (shape \(blob.shape))")
        }
        return resolved
    }
}

extension TensorShape {
    /// The number of elements spanned by the dimensions in `range` (their product).
    func elementCount(of range: Range<Int>) -> Int { dims[range].reduce(1, *) }
}
