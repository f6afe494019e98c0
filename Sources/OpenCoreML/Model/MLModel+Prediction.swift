import CoreMLSpec
import Foundation

extension MLModel {
    /// Predicts the outputs for one example.
    ///
    /// ```swift
    /// let input = try MLDictionaryFeatureProvider(dictionary: ["image": image])
    /// let output = try model.prediction(from: input)
    /// let probabilities = output.featureValue(for: "output")!.multiArrayValue!
    /// ```
    ///
    /// - Parameter input: A value for every input the model requires, under the input's name.
    ///   Multi-arrays may have any element type and strides if their element count matches the
    ///   input's shape.
    /// - Returns: A value for every output of the model. A classifier's predicted label and class
    ///   probabilities are under ``MLModelDescription/predictedFeatureName`` and
    ///   ``MLModelDescription/predictedProbabilitiesName``.
    /// - Throws: An ``MLModelError`` with ``MLModelError/Code/featureType`` naming the feature when an input
    ///   is missing or has the wrong type or shape.
    public func prediction(from input: MLFeatureProvider) throws -> MLFeatureProvider {
        try prediction(from: input, options: MLPredictionOptions())
    }

    /// Predicts the outputs for one example (the options are accepted for Core ML compatibility).
    public func prediction(from input: MLFeatureProvider, options: MLPredictionOptions) throws -> MLFeatureProvider {
        try runner().predictions([input])[0]
    }

    /// Predicts the outputs of every example in `batch`, in order.
    ///
    /// The examples run through the engine together, which is faster than one prediction at a time.
    ///
    /// - Parameter batch: The examples, each with a value for every input the model requires.
    /// - Returns: One output provider per example, in the same order.
    /// - Throws: An ``MLModelError`` naming the example and feature at fault.
    public func predictions(fromBatch batch: MLBatchProvider) throws -> MLBatchProvider {
        try predictions(fromBatch: batch, options: MLPredictionOptions())
    }

    /// Predicts the outputs of every example in `batch`, in order (the options are accepted for Core ML
    /// compatibility).
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
