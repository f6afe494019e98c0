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
                        let updater = try ModelUpdaters.make(model: model, trainingData: data)
                        if !parameters.isEmpty { try updater.schedule(parameters) }
                        try updater.run(events: events, report: { progress?($0) }, shouldStop: { flag.isSet })
                        continuation.resume(returning: updater.trainedModel())
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
        } onCancel: {
            flag.set()
        }
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
