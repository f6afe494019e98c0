import CoreMLSpec
import Foundation
import _OpenCoreMLEngine

/// One progress report of an update.
public struct UpdateProgress: Sendable {
    /// The moment of the report: ``MLUpdateProgressEvent/trainingBegin``, ``MLUpdateProgressEvent/miniBatchEnd`` or ``MLUpdateProgressEvent/epochEnd``.
    public var event: MLUpdateProgressEvent
    /// From 0.
    public var epoch: Int
    /// From 0, within the epoch (the last mini-batch's index at `.epochEnd`).
    public var miniBatch: Int
    /// The mini-batch's loss, or at `.epochEnd` the mean over the epoch's mini-batches.
    public var loss: Double
    /// Classifiers only: the fraction classified correctly, over the mini-batch or the epoch.
    public var accuracy: Double?
    /// Examples seen so far in this update.
    public var examplesSeen: Int
    /// The epochs the update will run (it can change through `resume(withParameters:)`).
    public var epochs: Int
    /// Mini-batches per epoch at the current mini-batch size.
    public var miniBatchesPerEpoch: Int
    /// Seconds since training began.
    public var secondsElapsed: Double
    /// False for models trained without a loss (k-NN: examples are stored, nothing is minimized).
    public var hasLoss = true

    /// The metrics as Core ML's update context reports them.
    var metrics: [MLMetricKey: Any] {
        var metrics: [MLMetricKey: Any] = [.epochIndex: epoch, .miniBatchIndex: miniBatch]
        if event != .trainingBegin && hasLoss { metrics[.lossValue] = loss }
        if let accuracy { metrics[.trainingAccuracy] = accuracy }
        return metrics
    }
}

/// The training loop of a neural-network model: epochs of shuffled mini-batches through the
/// engine, the optimizer after each, progress reported between mini-batches.
///
/// The last mini-batch of an epoch holds the remaining examples (it may be smaller). Shuffling
/// draws from a generator seeded with the `seed` parameter, so a run repeats exactly; every epoch
/// gets a new order.
final class NeuralNetworkUpdater: ModelUpdater, @unchecked Sendable {
    private(set) var settings: UpdateSettings
    private let network: Network
    private let optimizer: Optimizer
    private let data: TrainingSet
    private var specification: CoreML_Specification_Model
    private let configuration: MLModelConfiguration
    private let updateParameters: CoreML_Specification_NetworkUpdateParameters
    /// Parameters from `resume(withParameters:)` waiting for the next mini-batch.
    private var pending: [MLParameterKey: Any]?
    private let lock = NSLock()
    private let memoryLimit: Int
    /// The largest mini-batch whose buffers were checked against the memory limit.
    private var checkedBatch = 0

    init(model: MLModel, trainingData: MLBatchProvider) throws {
        guard let networkSpec = model.specification.neuralNetworkSpecification else {
            throw MLModelError(.update, "updating \(model.specification.modelTypeName) models is not supported yet")
        }
        guard model.modelDescription.isUpdatable, networkSpec.hasUpdateParams else {
            throw MLModelError(.update, "the model is not updatable (no update parameters)")
        }
        specification = model.specification
        configuration = model.configuration
        updateParameters = networkSpec.updateParams
        settings = UpdateSettings(model: model)
        memoryLimit = configuration.resolvedMemoryLimit
        // Layers before the updatable ones that the training engine does not run are computed once
        // per example (FrozenPrefix); what trains is the rest.
        let split = try FrozenPrefix.split(specification, trainingData: trainingData, configuration: configuration)
        let trainedPart = split?.trainedPart ?? specification
        do {
            network = try Network(model: trainedPart, memoryLimit: memoryLimit)
            try network.checkMemory(batch: settings.miniBatchSize, training: true, limit: memoryLimit)
            try network.checkGradientPaths()
        } catch let error as EngineError {
            throw MLModelError(.update, error.description)
        }
        checkedBatch = settings.miniBatchSize
        guard network.isTrainable else { throw MLModelError(.update, "the model has no trainable weights") }
        data = try TrainingSet(split?.examples ?? trainingData, network: network, specification: trainedPart, memoryLimit: memoryLimit)
        optimizer = Optimizer(settings.optimizer(for: updateParameters))
    }

    /// Checks `overrides` now and applies them before the next mini-batch.
    func schedule(_ overrides: [MLParameterKey: Any]) throws {
        var check = settings
        try check.apply(overrides)
        lock.lock()
        pending = (pending ?? [:]).merging(overrides) { _, new in new }
        lock.unlock()
    }

    private func applyPending() {
        lock.lock()
        let overrides = pending
        pending = nil
        lock.unlock()
        guard let overrides else { return }
        try? settings.apply(overrides)
        optimizer.settings = settings.optimizer(for: updateParameters)
    }

    /// Runs the update. `report` is called at every event in `events` (on this thread, one at a
    /// time); `shouldStop` is asked after every mini-batch. Returns normally when stopped early.
    func run(events: MLUpdateProgressEvent, report: (UpdateProgress) -> Void, shouldStop: () -> Bool) throws {
        let start = Date()
        var generator = SplitMix64(seed: settings.seed)
        var order = Array(0..<data.count)
        var seen = 0
        var epoch = 0
        func progress(_ event: MLUpdateProgressEvent, miniBatch: Int, loss: Double, accuracy: Double?) -> UpdateProgress {
            UpdateProgress(
                event: event, epoch: epoch, miniBatch: miniBatch, loss: loss, accuracy: accuracy, examplesSeen: seen,
                epochs: settings.epochs, miniBatchesPerEpoch: (data.count + settings.miniBatchSize - 1) / settings.miniBatchSize,
                secondsElapsed: Date().timeIntervalSince(start))
        }
        applyPending()
        if events.contains(.trainingBegin) { report(progress(.trainingBegin, miniBatch: 0, loss: 0, accuracy: nil)) }
        applyPending()
        while epoch < settings.epochs {
            if settings.shuffle { Self.shuffle(&order, using: &generator) }
            var position = 0, miniBatch = 0
            var lossSum = 0.0, correct = 0, counted = 0
            var tracksAccuracy = false
            while position < data.count {
                let size = min(settings.miniBatchSize, data.count - position)
                let loss: Float
                do {
                    if size > checkedBatch {
                        try network.checkMemory(batch: size, training: true, limit: memoryLimit)
                        checkedBatch = size
                    }
                    network.reserve(batch: size, training: true)
                    data.gather(order[position..<(position + size)], into: network)
                    loss = try network.trainingStep(batch: size)
                } catch let error as EngineError {
                    throw MLModelError(.update, error.description)
                }
                guard loss.isFinite else {
                    throw MLModelError(.update, "epoch \(epoch + 1), mini-batch \(miniBatch + 1): the loss became \(loss); lower the learning rate")
                }
                optimizer.update(network.parameters)
                let batchCorrect = network.correctClassifications(batch: size)
                if let batchCorrect {
                    tracksAccuracy = true
                    correct += batchCorrect
                    counted += size
                }
                lossSum += Double(loss)
                seen += size
                position += size
                if events.contains(.miniBatchEnd) {
                    report(progress(.miniBatchEnd, miniBatch: miniBatch, loss: Double(loss), accuracy: batchCorrect.map { Double($0) / Double(size) }))
                }
                miniBatch += 1
                if shouldStop() { return }
                applyPending()
            }
            if events.contains(.epochEnd) {
                report(progress(.epochEnd, miniBatch: miniBatch - 1, loss: lossSum / Double(miniBatch),
                                accuracy: tracksAccuracy ? Double(correct) / Double(counted) : nil))
            }
            epoch += 1
            if shouldStop() { return }
            applyPending()
        }
    }

    /// Fisher–Yates with our own generator, so the order is the same on every platform.
    static func shuffle(_ order: inout [Int], using generator: inout SplitMix64) {
        guard order.count > 1 else { return }
        for i in stride(from: order.count - 1, to: 0, by: -1) {
            let j = Int(generator.next() % UInt64(i + 1))
            order.swapAt(i, j)
        }
    }

    /// The model with the weights trained so far.
    func trainedModel() -> MLModel {
        var trained = specification
        network.store(in: &trained)
        return MLModel(trustedSpecification: trained, configuration: configuration)
    }

    /// The parameters in use, as Core ML's context reports them.
    var parameterValues: [MLParameterKey: Any] { settings.values }
}
