import CoreMLSpec

/// The training loop of one kind of updatable model, as ``MLUpdateTask`` and
/// `MLModel.update(with:)` drive it.
protocol ModelUpdater: AnyObject, Sendable {
    /// Checks `overrides` now and applies them from the next step.
    func schedule(_ overrides: [MLParameterKey: Any]) throws
    /// Trains, calling `report` at the events in `events` and asking `shouldStop` between steps.
    func run(events: MLUpdateProgressEvent, report: (UpdateProgress) -> Void, shouldStop: () -> Bool) throws
    /// The model trained so far.
    func trainedModel() -> MLModel
    /// The parameters in use, as Core ML's context reports them.
    var parameterValues: [MLParameterKey: Any] { get }
}

enum ModelUpdaters {
    /// The updater for `model` (a neural network, a k-NN classifier, or a pipeline whose last model is one).
    static func make(model: MLModel, trainingData: MLBatchProvider) throws -> any ModelUpdater {
        switch model.specification.type {
        case .kNearestNeighborsClassifier?:
            return try NearestNeighborsUpdater(model: model, trainingData: trainingData)
        case .pipeline?, .pipelineClassifier?, .pipelineRegressor?:
            return try PipelineUpdater(model: model, trainingData: trainingData)
        default:
            return try NeuralNetworkUpdater(model: model, trainingData: trainingData)
        }
    }
}
