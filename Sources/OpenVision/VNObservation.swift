import Foundation

/// What a request found: the base of every result in ``VNRequest/results``.
public class VNObservation: CustomStringConvertible, @unchecked Sendable {
    /// A new identifier for each observation.
    public let uuid: UUID
    /// How sure the request is, 0…1; 1 for observations that carry no score.
    public let confidence: VNConfidence

    init(confidence: VNConfidence) {
        uuid = UUID()
        self.confidence = confidence
    }

    public var description: String { "\(type(of: self)) confidence \(confidence)" }
}

/// One class of a Core ML classifier and its probability.
///
/// A ``VNCoreMLRequest`` on a classifier gives one per class, from the model's probabilities output,
/// the most probable first.
public class VNClassificationObservation: VNObservation, @unchecked Sendable {
    /// The class label (an integer label written out in decimal).
    public let identifier: String

    init(identifier: String, confidence: VNConfidence) {
        self.identifier = identifier
        super.init(confidence: confidence)
    }

    /// Whether the observation carries a precision-recall curve: never here (Vision has them only
    /// for its own classifiers).
    public var hasPrecisionRecallCurve: Bool { false }

    public override var description: String { "\(identifier) \(confidence)" }
}

/// One output of a Core ML model that is not a classifier: its name and value.
public class VNCoreMLFeatureValueObservation: VNObservation, @unchecked Sendable {
    /// The output's value, as the model's prediction gives it.
    public let featureValue: MLFeatureValue
    /// The output's name in the model description.
    public let featureName: String

    init(featureName: String, featureValue: MLFeatureValue) {
        self.featureName = featureName
        self.featureValue = featureValue
        super.init(confidence: 1)
    }

    public override var description: String { "\(featureName): \(featureValue)" }
}

/// One image output of a Core ML model.
public class VNPixelBufferObservation: VNObservation, @unchecked Sendable {
    /// The image (``PixelBuffer``, which is `CVPixelBuffer` where Core Video does not exist).
    public let pixelBuffer: PixelBuffer
    /// The output's name in the model description.
    public let featureName: String?

    init(featureName: String?, pixelBuffer: PixelBuffer) {
        self.featureName = featureName
        self.pixelBuffer = pixelBuffer
        super.init(confidence: 1)
    }

    public override var description: String { "\(featureName ?? "image"): \(pixelBuffer)" }
}
