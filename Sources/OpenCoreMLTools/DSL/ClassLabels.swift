/// Makes the model a classifier: with a `NeuralNetwork`, a `NeuralNetworkClassifier` whose
/// probabilities come from the last layer's output (or `probabilitiesBlob`).
///
/// The model gets two outputs: the predicted label (`predictedFeatureName`, String or Int64) and the
/// probabilities dictionary (`predictedProbabilitiesName`, by default the probabilities blob's name).
/// A cross-entropy loss then trains on the label: the training inputs hold `predictedFeatureName`.
public struct ClassLabels: ModelItem {
    public var labels: [ClassLabel]
    public var predictedFeatureName: String
    public var predictedProbabilitiesName: String?
    public var probabilitiesBlob: String?

    public init(_ labels: [ClassLabel], predictedFeatureName: String = "classLabel", predictedProbabilitiesName: String? = nil,
                probabilitiesBlob: String? = nil) {
        self.labels = labels
        self.predictedFeatureName = predictedFeatureName
        self.predictedProbabilitiesName = predictedProbabilitiesName
        self.probabilitiesBlob = probabilitiesBlob
    }
}
