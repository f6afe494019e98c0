import Foundation

extension MLModel {
    /// Trains a copy of this model on `trainingData` and returns it: the Swift-native form of
    /// ``MLUpdateTask`` (an OpenCoreML addition).
    ///
    /// ```swift
    /// let trained = try await model.update(with: examples, parameters: [.epochs: 5]) { progress in
    ///     print("epoch \(progress.epoch + 1): loss \(progress.loss)")
    /// }
    /// ```
    ///
    /// `parameters` override the model's (and the configuration's) values and must be allowed by
    /// the model. `progress` is called at `events`, one call at a time, off the calling task.
    /// Cancelling the calling task stops training after the current mini-batch and returns the model
    /// trained so far.
    ///
    /// - Parameters:
    ///   - trainingData: The examples: each holds the model's training inputs.
    ///   - parameters: Hyperparameters for this update, such as `[.epochs: 5]`.
    ///   - events: When `progress` is called.
    ///   - progress: Called with an ``UpdateProgress`` at each of `events`.
    /// - Returns: The trained copy of the model.
    /// - Throws: An ``MLModelError`` when the model is not updatable, a parameter is not allowed, or an
    ///   example does not fit the model.
    public func update(
        with trainingData: MLBatchProvider, parameters: [MLParameterKey: Any] = [:], events: MLUpdateProgressEvent = .epochEnd,
        progress: (@Sendable (UpdateProgress) -> Void)? = nil
    ) async throws -> MLModel {
        let flag = CancellationFlag()
        let job = UncheckedBox((self, trainingData, parameters))
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<MLModel, Error>) in
                startTrainingThread {
                    do {
                        let (model, data, parameters) = job.value
                        let result = try model.runUpdate(with: data, parameters: parameters, events: events,
                                                         progress: { progress?($0) }, shouldStop: { flag.isSet })
                        continuation.resume(returning: result.model)
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
        } onCancel: {
            flag.set()
        }
    }

    /// Trains a copy of this model on `trainingData`, waiting until it is done, and returns it with
    /// one summary per epoch (an OpenCoreML addition, for tools and scripts; apps use
    /// ``MLUpdateTask`` or the `async` ``update(with:parameters:events:progress:)``).
    ///
    /// ```swift
    /// let result = try model.updated(with: examples, parameters: [.epochs: 3])
    /// for epoch in result.epochs { print(epoch.index + 1, epoch.loss, epoch.accuracy ?? .nan) }
    /// try result.model.write(to: URL(fileURLWithPath: "Trained.mlmodel"))
    /// ```
    ///
    /// Training runs on OpenCoreML's training thread while the calling thread waits. `progress` is
    /// called there at `events` (and `.epochEnd` is always recorded); an error it throws stops
    /// training after the current mini-batch and is rethrown here, with nothing returned.
    ///
    /// - Parameters:
    ///   - trainingData: The examples: each holds the model's training inputs.
    ///   - parameters: Hyperparameters for this update, such as `[.epochs: 5]`.
    ///   - events: When `progress` is called.
    ///   - progress: Called with an ``UpdateProgress`` at each of `events`.
    /// - Returns: The trained copy of the model and one ``MLUpdateResult/Epoch`` per epoch.
    /// - Throws: An ``MLModelError`` when the model is not updatable, a parameter is not allowed, or an
    ///   example does not fit the model; or what `progress` throws.
    public func updated(
        with trainingData: MLBatchProvider, parameters: [MLParameterKey: Any] = [:], events: MLUpdateProgressEvent = .epochEnd,
        progress: ((UpdateProgress) throws -> Void)? = nil
    ) throws -> MLUpdateResult {
        let outcome = UncheckedBox<Result<MLUpdateResult, Error>?>(nil)
        let job = UncheckedBox((self, trainingData, parameters, progress))
        let done = DispatchSemaphore(value: 0)
        startTrainingThread {
            let (model, data, parameters, progress) = job.value
            var reportError: Error?
            outcome.value = Result {
                try model.runUpdate(with: data, parameters: parameters, events: events, progress: { update in
                    guard reportError == nil, let progress else { return }
                    do { try progress(update) } catch { reportError = error }
                }, shouldStop: { reportError != nil })
            }
            if let reportError { outcome.value = .failure(reportError) }
            done.signal()
        }
        done.wait()
        return try outcome.value!.get()
    }

    /// The update loop both forms share: runs on the training thread, records every epoch.
    private func runUpdate(
        with trainingData: MLBatchProvider, parameters: [MLParameterKey: Any], events: MLUpdateProgressEvent,
        progress: (UpdateProgress) -> Void, shouldStop: () -> Bool
    ) throws -> MLUpdateResult {
        let updater = try ModelUpdaters.make(model: self, trainingData: trainingData)
        if !parameters.isEmpty { try updater.schedule(parameters) }
        var epochs: [MLUpdateResult.Epoch] = []
        var epochStart = (Date(), OpenCoreMLRuntime.processorSeconds)
        try updater.run(events: events.union([.trainingBegin, .epochEnd]), report: { update in
            if update.event == .trainingBegin { epochStart = (Date(), OpenCoreMLRuntime.processorSeconds) }
            if update.event == .epochEnd {
                epochs.append(MLUpdateResult.Epoch(
                    index: update.epoch, loss: update.hasLoss ? update.loss : nil, accuracy: update.accuracy,
                    seconds: Date().timeIntervalSince(epochStart.0), processorSeconds: OpenCoreMLRuntime.processorSeconds - epochStart.1))
                epochStart = (Date(), OpenCoreMLRuntime.processorSeconds)
            }
            if events.contains(update.event) { progress(update) }
        }, shouldStop: shouldStop)
        return MLUpdateResult(model: updater.trainedModel(), epochs: epochs)
    }
}

/// A flag one thread sets and another reads.
final class CancellationFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    func set() {
        lock.lock()
        value = true
        lock.unlock()
    }
}
