/// Makes the model a classifier: with a `NeuralNetwork`, a `NeuralNetworkClassifier` whose
/// probabilities come from the last layer's output (or `probabilitiesBlob`).
///
/// The model gets two outputs: the predicted label (`predictedFeatureName`, String or Int64) and the
/// probabilities dictionary (`predictedProbabilitiesName`, by default the probabilities blob's name).
/// A cross-entropy loss then trains on the label: the training inputs hold `predictedFeatureName`.
public struct ClassLabels: ModelItem {
    /// The classes, in the order of the probabilities blob's channels: all strings or all integers.
    public var labels: [ClassLabel]
    /// The name of the output that holds the predicted label, and of the training input that holds the
    /// true label (`classLabel` by default). Writes the model description's `predictedFeatureName`.
    public var predictedFeatureName: String
    /// The name of the output that holds the probability dictionary; nil for the probabilities blob's
    /// name. Writes the model description's `predictedProbabilitiesName`.
    public var predictedProbabilitiesName: String?
    /// The blob that holds the class probabilities; nil for the last layer's output. Writes the
    /// classifier's `labelProbabilityLayerName`.
    public var probabilitiesBlob: String?

    /// Makes the model a classifier with these labels.
    ///
    /// ```swift
    /// ClassLabels(["cat", "dog"], predictedFeatureName: "label", predictedProbabilitiesName: "labelProbability")
    /// ```
    ///
    /// - Parameters:
    ///   - labels: The classes, in the order of the probabilities blob's channels.
    ///   - predictedFeatureName: The name of the predicted-label output.
    ///   - predictedProbabilitiesName: The name of the probability-dictionary output; nil for the
    ///     probabilities blob's name.
    ///   - probabilitiesBlob: The blob that holds the probabilities; nil for the last layer's output.
    public init(_ labels: [ClassLabel], predictedFeatureName: String = "classLabel", predictedProbabilitiesName: String? = nil,
                probabilitiesBlob: String? = nil) {
        self.labels = labels
        self.predictedFeatureName = predictedFeatureName
        self.predictedProbabilitiesName = predictedProbabilitiesName
        self.probabilitiesBlob = probabilitiesBlob
    }
}
