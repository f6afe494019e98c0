import CoreMLSpec
import Foundation

extension MLModel {
    /// Predicts the outputs for one example.
    public func prediction(from input: MLFeatureProvider) throws -> MLFeatureProvider {
        try prediction(from: input, options: MLPredictionOptions())
    }

    /// Predicts the outputs for one example (the options are accepted for Core ML compatibility).
    public func prediction(from input: MLFeatureProvider, options: MLPredictionOptions) throws -> MLFeatureProvider {
        try runner().predictions([input])[0]
    }

    /// Predicts the outputs of every example in `batch`, in order.
    public func predictions(fromBatch batch: MLBatchProvider) throws -> MLBatchProvider {
        try predictions(fromBatch: batch, options: MLPredictionOptions())
    }

    public func predictions(fromBatch batch: MLBatchProvider, options: MLPredictionOptions) throws -> MLBatchProvider {
        let examples = (0..<batch.count).map(batch.features(at:))
        return MLArrayBatchProvider(array: try runner().predictions(examples))
    }

    /// Core ML's older spelling of ``predictions(fromBatch:options:)``.
    public func predictions(from batch: MLBatchProvider, options: MLPredictionOptions) throws -> MLBatchProvider {
        try predictions(fromBatch: batch, options: options)
    }

    /// Predicts off the calling thread.
    public func prediction(from input: MLFeatureProvider) async throws -> MLFeatureProvider {
        try await prediction(from: input, options: MLPredictionOptions())
    }

    /// Predicts off the calling thread.
    public func prediction(from input: MLFeatureProvider, options: MLPredictionOptions) async throws -> MLFeatureProvider {
        let box = UncheckedBox((input, options))
        return try await Task.detached { [self] in UncheckedBox(try self.prediction(from: box.value.0, options: box.value.1)) }.value.value
    }
}
