import Foundation
import OpenCoreML

extension MLImageClassifier.DataSource {
    /// The pictures bound to an image model (an OpenCoreML addition): each decoded and fitted to the
    /// model's single image input, with its folder's name as the label feature the model predicts,
    /// ready for `MLUpdateTask` (personalizing an updatable classifier) or for
    /// ``MLClassifierMetrics/init(model:on:labelFeature:)``. Decoding errors throw here, naming the
    /// picture. `progress` is called after each picture with (done, total).
    public func batchProvider(for model: MLModel, progress: ((Int, Int) -> Void)? = nil) throws -> MLArrayBatchProvider {
        let description = model.modelDescription
        let images = description.inputDescriptionsByName.values.filter { $0.imageConstraint != nil }
        guard description.inputDescriptionsByName.count == 1, let input = images.first, let constraint = input.imageConstraint else {
            throw CreateMLError("model", "not an image classifier (it needs exactly one input, an image)")
        }
        guard let labelName = description.predictedFeatureName else {
            throw CreateMLError("model", "not a classifier (no predicted label output)")
        }
        let pictures = try labeledImages()
        var examples: [MLFeatureProvider] = []
        for (index, picture) in pictures.enumerated() {
            do {
                let image = try MLFeatureValue(imageAt: picture.url, constraint: constraint)
                examples.append(try MLDictionaryFeatureProvider(dictionary: [input.name: image, labelName: MLFeatureValue(string: picture.label)]))
            } catch {
                throw CreateMLError(picture.url.path, "\(error)")
            }
            progress?(index + 1, pictures.count)
        }
        return MLArrayBatchProvider(array: examples)
    }
}

extension MLClassifierMetrics {
    /// Scores an image classifier model on labelled pictures (an OpenCoreML addition; Create ML
    /// evaluates only classifiers it trained): misclassified examples name their files.
    /// `progress` is called after each picture is decoded with (done, total).
    public init(model: MLModel, on data: MLImageClassifier.DataSource, progress: ((Int, Int) -> Void)? = nil) throws {
        let pictures = try data.batchProvider(for: model, progress: progress)
        self = try MLClassifierMetrics(model: model, on: pictures).naming(data.labeledImages().map(\.url))
    }

    /// The same metrics with each misclassified example's file.
    private func naming(_ files: [URL]) -> MLClassifierMetrics {
        var copy = self
        copy.misclassifiedExamples = misclassifiedExamples.map { wrong in
            var named = wrong
            named.file = files.indices.contains(wrong.index) ? files[wrong.index] : nil
            return named
        }
        return copy
    }
}
