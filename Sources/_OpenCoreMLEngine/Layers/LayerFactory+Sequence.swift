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
    /// Checks the layer's blob counts; throws a clear error otherwise.
    func checkSequenceBlobCounts(inputs allowedInputs: ClosedRange<Int>, outputs allowedOutputs: ClosedRange<Int>) throws {
        func describe(_ range: ClosedRange<Int>) -> String {
            range.lowerBound == range.upperBound ? "\(range.lowerBound)"
                : range.upperBound == .max ? "at least \(range.lowerBound)" : "\(range.lowerBound) to \(range.upperBound)"
        }
        guard allowedInputs.contains(inputs.count) else {
            throw fail("has \(inputs.count) inputs; \(describe(allowedInputs)) expected")
        }
        guard allowedOutputs.contains(outputs.count) else {
            throw fail("has \(outputs.count) outputs; \(describe(allowedOutputs)) expected")
        }
    }

    /// An axis of a rank-`rank` tensor, counted from the end when negative; throws unless it lies in
    /// `-rank..<rank` (or `-rank...rank` when `allowingEnd`).
    func resolveNDAxis(_ axis: Int64, rank: Int, allowingEnd: Bool = false, of blob: Blob) throws -> Int {
        let resolved = axis < 0 ? Int(axis) + rank : Int(axis)
        let upper = allowingEnd ? rank : rank - 1
        guard resolved >= 0, resolved <= upper else {
            throw fail("axis \(axis) is outside the \(rank) dimensions of input '\(blob.name)' (shape \(blob.shape))")
        }
        return resolved
    }
}

extension TensorShape {
    /// The number of elements spanned by the dimensions in `range` (their product).
    func elementCount(of range: Range<Int>) -> Int { dims[range].reduce(1, *) }
}
