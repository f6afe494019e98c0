import CoreMLSpec
import Foundation

/// Trains a pipeline's last model (the only updatable one, as in Core ML): the earlier models run
/// once over the training data, then the last model trains on their outputs plus the examples'
/// own features (its targets). The trained pipeline holds the earlier models unchanged.
final class PipelineUpdater: ModelUpdater, @unchecked Sendable {
    private let pipeline: MLModel
    private let inner: any ModelUpdater

    init(model: MLModel, trainingData: MLBatchProvider) throws {
        let models = model.specification.pipelineModels
        guard let last = models.last else { throw MLModelError(.update, "the pipeline has no models") }
        guard model.modelDescription.isUpdatable, last.isUpdatable else {
            throw MLModelError(.update, "the pipeline is not updatable (its last model must be updatable)")
        }
        pipeline = model
        let parameters = model.configuration.parameters ?? [:]
        let stages = try models.dropLast().map { try ModelRunners.make($0, parameters: [:], memoryLimit: model.configuration.resolvedMemoryLimit) }
        var examples: [MLFeatureProvider] = []
        examples.reserveCapacity(trainingData.count)
        for index in 0..<trainingData.count { examples.append(trainingData.features(at: index)) }
        let features = try PipelineRunner.run(stages[...], on: examples)
        let configuration = model.configuration.copy()
        configuration.parameters = parameters.isEmpty ? nil : parameters
        let lastModel = MLModel(trustedSpecification: last, configuration: configuration)
        inner = try ModelUpdaters.make(model: lastModel, trainingData: MLArrayBatchProvider(array: features))
    }

    func schedule(_ overrides: [MLParameterKey: Any]) throws { try inner.schedule(overrides) }

    func run(events: MLUpdateProgressEvent, report: (UpdateProgress) -> Void, shouldStop: () -> Bool) throws {
        try inner.run(events: events, report: report, shouldStop: shouldStop)
    }

    func trainedModel() -> MLModel {
        let trainedLast = inner.trainedModel()
        var specification = pipeline.specification
        specification.replaceLastPipelineModel(with: trainedLast.specification)
        return MLModel(trustedSpecification: specification, configuration: trainedLast.configuration)
    }

    var parameterValues: [MLParameterKey: Any] { inner.parameterValues }
}
