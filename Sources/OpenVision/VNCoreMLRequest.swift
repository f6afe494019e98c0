import Foundation
import _OpenCoreMLImageIO

/// Runs a Core ML model on the request handler's image.
///
/// The handler's picture, turned upright, is cut to ``VNImageBasedRequest/regionOfInterest`` and
/// fitted to the model's image input by ``imageCropAndScaleOption`` (the same pixels as
/// `MLFeatureValue(imageAt:constraint:options:)` with `.cropRect` and `.cropAndScale`), then predicted.
/// The results are, as in Vision:
/// - for a detector (a non-maximum suppression model, or a pipeline whose last model is one), one
///   ``VNRecognizedObjectObservation`` per box the suppression kept, in its order (most confident
///   first): its `boundingBox` from the box's (centerX, centerY, width, height), which the model
///   gives normalized with the origin at the top left, turned to Vision's bottom-left origin; its
///   `labels` one per class of the suppression (its class labels, or the class numbers when it has
///   none), each with the class's share of the box's confidences, most likely first; its
///   `confidence` the sum of the box's confidences (Core ML's "confidence that there is any
///   object"). Rows whose confidences are all 0 (the padding of a fixed-size output) are skipped.
///   Boxes stay relative to the image the model saw: the crop, scale and region of interest are
///   not undone;
/// - for a classifier, one ``VNClassificationObservation`` per class from the model's probabilities
///   output, sorted by confidence, highest first (a classifier without a probabilities output gives
///   its predicted label with confidence 1);
/// - for any other model, one observation per output in the model's order: a
///   ``VNPixelBufferObservation`` for an image output, else a ``VNCoreMLFeatureValueObservation``.
///
/// ```swift
/// let request = VNCoreMLRequest(model: visionModel) { request, error in
///     if let top = (request.results as? [VNClassificationObservation])?.first { print(top.identifier, top.confidence) }
/// }
/// request.imageCropAndScaleOption = .centerCrop
/// try VNImageRequestHandler(url: pictureURL).perform([request])
/// ```
public final class VNCoreMLRequest: VNImageBasedRequest, @unchecked Sendable {
    /// The model the request runs.
    public let model: VNCoreMLModel
    /// How the picture is fitted to the model's input size: `.centerCrop` (the default, as in Vision),
    /// `.scaleFit` or `.scaleFill`. The rotating options fail with ``VNErrorCode/invalidOption``.
    public var imageCropAndScaleOption: VNImageCropAndScaleOption = .centerCrop

    /// A request that runs `model`, calling `completionHandler` after each perform.
    public init(model: VNCoreMLModel, completionHandler: VNRequestCompletionHandler? = nil) {
        self.model = model
        super.init(completionHandler: completionHandler)
    }

    override func observations(in image: RGBAImage) throws -> [VNObservation] {
        let constraint = try model.imageConstraint()
        let input = try fitted(image, to: constraint)
        let output: MLFeatureProvider
        do {
            output = try model.model.prediction(from: model.inputs(image: input))
        } catch {
            throw VNError(.operationFailed, "VNCoreMLRequest: the prediction failed: \(error)", underlyingError: error)
        }
        if let detector = VNObjectDetectorOutputs(model: model.model) {
            return try detector.observations(from: output)
        }
        return observations(from: output, of: model.model.modelDescription)
    }

    /// The picture cut to the region of interest and fitted to the input, as a pixel buffer value.
    private func fitted(_ image: RGBAImage, to constraint: MLImageConstraint) throws -> MLFeatureValue {
        try checkRegionOfInterest()
        let mode = imageCropAndScaleOption.rawValue
        guard mode <= 2 else {
            throw VNError(.invalidOption, "VNCoreMLRequest: imageCropAndScaleOption \(mode) is not supported (centerCrop, scaleFit or scaleFill)")
        }
        var options: [MLFeatureValue.ImageOption: Any] = [.cropAndScale: mode]
        if !coversWholeImage { options[.cropRect] = regionOfInterest.standardized }
        do {
            return try MLFeatureValue(image: image, constraint: constraint, options: options, name: "VNCoreMLRequest image")
        } catch {
            throw VNError(.invalidModel, "VNCoreMLRequest: the image input cannot be made: \(error)", underlyingError: error)
        }
    }

    /// Vision's observations of a prediction.
    private func observations(from output: MLFeatureProvider, of description: MLModelDescription) -> [VNObservation] {
        if let name = description.predictedProbabilitiesName, let probabilities = output.featureValue(for: name), probabilities.type == .dictionary {
            return classifications(probabilities.dictionaryValue, classLabels: description.classLabels ?? [])
        }
        if let name = description.predictedFeatureName, let label = output.featureValue(for: name) {
            let identifier = label.type == .string ? label.stringValue : String(label.int64Value)
            return [VNClassificationObservation(identifier: identifier, confidence: 1)]
        }
        return description.outputDescriptions.compactMap { feature -> VNObservation? in
            guard let value = output.featureValue(for: feature.name) else { return nil }
            if let buffer = value.imageBufferValue { return VNPixelBufferObservation(featureName: feature.name, pixelBuffer: buffer) }
            return VNCoreMLFeatureValueObservation(featureName: feature.name, featureValue: value)
        }
    }

    /// One observation per class, highest probability first; ties keep the model's class order.
    private func classifications(_ probabilities: [AnyHashable: NSNumber], classLabels: [Any]) -> [VNClassificationObservation] {
        func text(_ label: Any) -> String { (label as? String) ?? String(describing: label) }
        var order: [String: Int] = [:]
        for (index, label) in classLabels.enumerated() where order[text(label)] == nil { order[text(label)] = index }
        let observations = probabilities.map { key, value in
            VNClassificationObservation(identifier: text(key.base), confidence: value.floatValue)
        }
        return observations.sorted { a, b in
            if a.confidence != b.confidence { return a.confidence > b.confidence }
            let (i, j) = (order[a.identifier] ?? .max, order[b.identifier] ?? .max)
            return i != j ? i < j : a.identifier < b.identifier
        }
    }
}
