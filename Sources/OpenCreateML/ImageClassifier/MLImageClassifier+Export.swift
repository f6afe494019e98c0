import CoreMLSpec
import Foundation
import OpenCoreMLTools

extension MLImageClassifier {
    /// The exported model's label output (and, for the neural network, its training input).
    static let exportedLabelName = "label"
    static let exportedProbabilitiesName = "labelProbability"

    /// The classifier as one updatable Core ML pipeline: the feature extractor, then either an
    /// inner-product + softmax network classifier (cross-entropy loss, SGD, so `MLUpdateTask` can
    /// train it further) or an updatable k-NN classifier holding every training vector. Its input
    /// is the extractor's image; its outputs `label` and `labelProbability`.
    ///
    /// - Parameter metadata: The author, description, license, version and other entries to store;
    ///   nil: a description naming the classes.
    public func exportedSpecification(metadata: MLModelMetadata? = nil) throws -> CoreML_Specification_Model {
        try Self.pipelineSpecification(classifier, extractor: extractor, labels: classLabels, metadata: metadata)
    }

    /// Exports the classifier as a Core ML model file, `exportedSpecification(metadata:)` (atomically:
    /// no partial file on failure).
    public func write(to fileURL: URL, metadata: MLModelMetadata? = nil) throws {
        try exportedSpecification(metadata: metadata).write(to: fileURL)
    }

    /// Exports the classifier as a Core ML model file at `path`.
    public func write(toFile path: String, metadata: MLModelMetadata? = nil) throws {
        try write(to: URL(fileURLWithPath: path), metadata: metadata)
    }

    static func pipelineSpecification(_ classifier: Classifier, extractor: ImageFeatureExtractor, labels: [String],
                                      metadata: MLModelMetadata?) throws -> CoreML_Specification_Model {
        let classifierSpec = try classifierSpecification(classifier, extractor: extractor, labels: labels)
        var pipeline = try CoreML_Specification_Model.pipeline([extractor.specification, classifierSpec], names: ["featureExtractor", "classifier"])
        var stored = CoreML_Specification_Metadata()
        stored.shortDescription = "Image classifier (\(labels.joined(separator: ", "))) trained by OpenCreateML"
        if let metadata { stored = metadata.specification }
        stored.userDefined["com.opencoreml.trainer"] = "OpenCreateML.MLImageClassifier"
        pipeline.description_p.metadata = stored
        try pipeline.validate()
        return pipeline
    }

    /// The classifier part alone: its input is the extractor's output.
    static func classifierSpecification(_ classifier: Classifier, extractor: ImageFeatureExtractor, labels: [String]) throws -> CoreML_Specification_Model {
        let d = UInt(extractor.featureCount)
        let input = Input(name: extractor.outputName, shape: [d])
        switch classifier {
        case .logisticRegression(let model):
            return try Model(shortDescription: "Logistic regression on image features") {
                input
                ClassLabels(labels.map(ClassLabel.string), predictedFeatureName: exportedLabelName, predictedProbabilitiesName: exportedProbabilitiesName)
                NeuralNetwork(losses: [CategoricalCrossEntropy(name: "loss", input: exportedProbabilitiesName, target: exportedProbabilitiesName + "_true")],
                              optimizer: SGD(learningRateDefault: 0.01, miniBatchSizeDefault: 8, miniBatchSizeRange: [1, 2, 4, 8, 16, 32, 64],
                                             momentumDefault: 0.9),
                              epochDefault: 10, epochRange: 1...1000, shuffle: true) {
                    InnerProduct(name: "classifier", input: [extractor.outputName], output: ["logits"], weight: model.weights, bias: model.intercepts,
                                 inputChannels: d, outputChannels: UInt(labels.count), updatable: true)
                    Softmax(name: "softmax", input: ["logits"], output: [exportedProbabilitiesName])
                }
            }.makeSpecification()
        case .nearestNeighbors(let k, let samples, let sampleLabels):
            return try Model(shortDescription: "k nearest neighbours of image features") {
                input
                KNearestNeighborsClassifier(numberOfNeighbors: UInt(k), samples: samples, labels: sampleLabels.map(ClassLabel.string),
                                            updatable: true, predictedFeatureName: exportedLabelName, predictedProbabilitiesName: exportedProbabilitiesName)
            }.makeSpecification()
        }
    }
}
