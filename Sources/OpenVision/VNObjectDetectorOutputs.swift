import CoreMLSpec
import Foundation

/// Where a detector model puts its kept boxes: the confidence and coordinates outputs of its
/// non-maximum suppression, and the suppression's class labels.
///
/// A model is a detector when it is a non-maximum suppression model, or a pipeline whose last model
/// is one (or a pipeline ending in such a pipeline), and it outputs both of the suppression's
/// outputs. As in Vision, models that merely have outputs named like a detector's (an ML Program or
/// neural network ending in confidence and coordinates) are not detectors: their outputs come back
/// as feature values.
struct VNObjectDetectorOutputs {
    let confidenceName: String
    let coordinatesName: String
    let labels: ClassLabelSet

    init?(model: MLModel) {
        guard let suppression = Self.suppression(in: model.specification) else { return nil }
        let outputs = Set(model.modelDescription.outputDescriptions.map(\.name))
        guard outputs.contains(suppression.confidenceOutputFeatureName), outputs.contains(suppression.coordinatesOutputFeatureName) else { return nil }
        confidenceName = suppression.confidenceOutputFeatureName
        coordinatesName = suppression.coordinatesOutputFeatureName
        labels = suppression.classLabelSet
    }

    /// The suppression that ends `model`, if one does.
    private static func suppression(in model: CoreML_Specification_Model) -> CoreML_Specification_NonMaximumSuppression? {
        var current = model
        for _ in 0..<64 {  // pipelines nest; a bound keeps a hostile nesting from running long
            switch current.type {
            case .nonMaximumSuppression(let suppression)?:
                return suppression
            case .pipeline?, .pipelineClassifier?, .pipelineRegressor?:
                guard let last = current.pipelineModels.last else { return nil }
                current = last
            default:
                return nil
            }
        }
        return nil
    }

    /// One observation per kept box of `output`, in the suppression's order.
    func observations(from output: MLFeatureProvider) throws -> [VNObservation] {
        guard let confidence = output.featureValue(for: confidenceName)?.multiArrayValue,
              let coordinates = output.featureValue(for: coordinatesName)?.multiArrayValue
        else {
            throw VNError(.invalidModel, "VNCoreMLRequest: the detector's outputs '\(confidenceName)' and '\(coordinatesName)' must be multi-arrays")
        }
        let confidenceShape = confidence.shape.map(\.intValue)
        let coordinatesShape = coordinates.shape.map(\.intValue)
        guard confidenceShape.count >= 2, coordinatesShape.last == 4, let classes = confidenceShape.last, classes > 0,
              confidence.count / classes == coordinates.count / 4
        else {
            throw VNError(.invalidModel, "VNCoreMLRequest: the detector's outputs have shapes \(confidenceShape) and \(coordinatesShape); "
                + "expected (boxes, classes) and (boxes, 4)")
        }
        let scores = confidence.floatValues()
        let boxes = coordinates.floatValues()
        let names = labels.descriptions
        let identifiers = (0..<classes).map { $0 < names.count ? names[$0] : String($0) }
        var observations: [VNObservation] = []
        for box in 0..<(coordinates.count / 4) {
            let row = scores[(box * classes)..<((box + 1) * classes)]
            let total = row.reduce(0, +)
            guard total > 0 else { continue }
            let labels = zip(identifiers, row).enumerated()
                .map { (order: $0.offset, label: VNClassificationObservation(identifier: $0.element.0, confidence: $0.element.1 / total)) }
                .sorted { $0.label.confidence != $1.label.confidence ? $0.label.confidence > $1.label.confidence : $0.order < $1.order }
                .map(\.label)
            let (x, y, width, height) = (boxes[box * 4], boxes[box * 4 + 1], boxes[box * 4 + 2], boxes[box * 4 + 3])
            let boundingBox = CGRect(x: CGFloat(x - width / 2), y: CGFloat(1 - y - height / 2), width: CGFloat(width), height: CGFloat(height))
            observations.append(VNRecognizedObjectObservation(boundingBox: boundingBox, confidence: total, labels: labels))
        }
        return observations
    }
}
