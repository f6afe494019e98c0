import Foundation

/// A Core ML model prepared for ``VNCoreMLRequest``s: which input gets the image, and where the
/// other inputs come from.
///
/// ```swift
/// let visionModel = try VNCoreMLModel(for: MLModel(contentsOf: URL(fileURLWithPath: "HealthySnacks.mlmodel")))
/// ```
public final class VNCoreMLModel: @unchecked Sendable {
    /// The Core ML model.
    let model: MLModel

    /// The input that gets the request handler's image: by default the model's first image input.
    /// Setting it to a name that is not an image input makes requests fail with
    /// ``VNErrorCode/invalidModel``.
    public var inputImageFeatureName: String
    /// Values for the model's other inputs, for models that take more than the image. A value it
    /// gives for the image input is ignored.
    public var featureProvider: MLFeatureProvider?

    /// Prepares `model` for Vision.
    ///
    /// - Throws: A ``VNError`` with ``VNErrorCode/invalidModel`` if no input of the model is an image.
    public init(for model: MLModel) throws {
        let description = model.modelDescription
        guard let image = description.inputDescriptions.first(where: { $0.type == .image && $0.imageConstraint != nil }) else {
            let inputs = description.inputDescriptions.map { "\($0.name) (\($0.type))" }.joined(separator: ", ")
            throw VNError(.invalidModel, "VNCoreMLModel: the model takes no image input (inputs: \(inputs.isEmpty ? "none" : inputs))")
        }
        self.model = model
        inputImageFeatureName = image.name
    }

    /// The size and pixel format the image input takes.
    func imageConstraint() throws -> MLImageConstraint {
        guard let constraint = model.modelDescription.inputDescriptionsByName[inputImageFeatureName]?.imageConstraint else {
            throw VNError(.invalidModel, "VNCoreMLModel: inputImageFeatureName '\(inputImageFeatureName)' is not an image input of the model")
        }
        return constraint
    }

    /// The model's inputs: `image` under ``inputImageFeatureName``, the others from ``featureProvider``.
    func inputs(image: MLFeatureValue) -> MLFeatureProvider {
        var values: [String: MLFeatureValue] = [inputImageFeatureName: image]
        if let featureProvider {
            for name in featureProvider.featureNames where name != inputImageFeatureName {
                if let value = featureProvider.featureValue(for: name) { values[name] = value }
            }
        }
        return MLDictionaryFeatureProvider(featureValues: values)
    }
}
