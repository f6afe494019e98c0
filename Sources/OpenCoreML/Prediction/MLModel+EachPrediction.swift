extension MLModel {
    /// Runs the model on every example in batches of 256, calling `body` with each example's
    /// index, its input features and the model's output, in order: how evaluations (Create ML's
    /// metrics, a Flower client's `evaluate`) score a batch provider without holding every output.
    package func forEachPrediction(
        on examples: MLBatchProvider, _ body: (Int, MLFeatureProvider, MLFeatureProvider) throws -> Void
    ) throws {
        let chunk = 256
        var start = 0
        while start < examples.count {
            let end = min(start + chunk, examples.count)
            let inputs = (start..<end).map { examples.features(at: $0) }
            let outputs = try predictions(fromBatch: MLArrayBatchProvider(array: inputs))
            for offset in 0..<outputs.count {
                try body(start + offset, inputs[offset], outputs.features(at: offset))
            }
            start = end
        }
    }
}
