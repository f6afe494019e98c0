import Foundation

/// Something found at a place in the image: its bounding box.
public class VNDetectedObjectObservation: VNObservation, @unchecked Sendable {
    /// Where the object is, in normalized coordinates: 0…1 on each axis, origin at the bottom left,
    /// as everywhere in Vision.
    public let boundingBox: CGRect

    init(boundingBox: CGRect, confidence: VNConfidence) {
        self.boundingBox = boundingBox
        super.init(confidence: confidence)
    }

    public override var description: String { "\(type(of: self)) \(boundingBox) confidence \(confidence)" }
}

/// An object a Core ML detector found: where it is and what it may be.
///
/// A ``VNCoreMLRequest`` on a detector (a non-maximum suppression model, or a pipeline that ends
/// with one) gives one per box the suppression kept, the most confident first.
public class VNRecognizedObjectObservation: VNDetectedObjectObservation, @unchecked Sendable {
    /// What the object may be: one observation per class of the detector, the most likely first.
    public let labels: [VNClassificationObservation]

    init(boundingBox: CGRect, confidence: VNConfidence, labels: [VNClassificationObservation]) {
        self.labels = labels
        super.init(boundingBox: boundingBox, confidence: confidence)
    }

    public override var description: String {
        let best = labels.first.map { " \($0.identifier) \($0.confidence)" } ?? ""
        return "\(type(of: self)) \(boundingBox) confidence \(confidence)\(best)"
    }
}
