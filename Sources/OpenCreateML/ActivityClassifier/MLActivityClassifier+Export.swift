import CoreMLSpec
import Foundation

extension MLActivityClassifier {
    /// The classifier as a Core ML model with Turi Create 5's interface (the book's
    /// `GestureClassifier`):
    ///
    /// - inputs: `features`, doubles `[1, predictionWindowSize, featureColumns.count]` (one window,
    ///   samples by features); `hiddenIn` and `cellIn`, doubles `[200]`, both optional (zeros when
    ///   left out, as at the start of a recording);
    /// - outputs: `<labelColumn>Probability` (a dictionary), `<labelColumn>` (the most probable
    ///   activity), and `hiddenOut` / `cellOut` to pass as the next window's `hiddenIn` / `cellIn`;
    /// - metadata (`userDefined`): `prediction_window`, `features`, `target`, `session_id`,
    ///   `max_iterations` and `type`, as Turi Create writes them.
    ///
    /// Beyond Turi Create and Create ML, the model is updatable: `MLUpdateTask` trains its
    /// convolution, LSTM, batchnorm and dense layers (Adam, cross-entropy on the label) with one
    /// window per example.
    ///
    /// - Parameter metadata: The author, description, license, version and other entries to store;
    ///   Turi Create's entries are kept.
    public func exportedSpecification(metadata: MLModelMetadata? = nil) -> CoreML_Specification_Model {
        var specification = exportSpecification
        if let metadata {
            var stored = metadata.specification
            stored.userDefined.merge(specification.description_p.metadata.userDefined) { mine, _ in mine }
            specification.description_p.metadata = stored
        }
        return specification
    }

    /// Writes the classifier as a Core ML model file, ``exportedSpecification(metadata:)``
    /// (atomically: no partial file on failure).
    public func write(to fileURL: URL, metadata: MLModelMetadata? = nil) throws {
        try exportedSpecification(metadata: metadata).write(to: fileURL)
    }

    /// Writes the classifier as a Core ML model file at `path`.
    public func write(toFile path: String, metadata: MLModelMetadata? = nil) throws {
        try write(to: URL(fileURLWithPath: path), metadata: metadata)
    }
}
