import Foundation
import _OpenCoreMLEngine

/// Trains an updatable model on device, reporting progress to handlers: Core ML's API.
///
/// ```swift
/// let handlers = MLUpdateProgressHandlers(forEvents: [.epochEnd], progressHandler: { context in
///     print(context.metrics[.epochIndex] as! Int, context.metrics[.lossValue] as! Double)
/// }, completionHandler: { context in
///     try? context.model.write(to: trainedURL)
/// })
/// let task = try MLUpdateTask(forModelAt: modelURL, trainingData: batch, configuration: nil, progressHandlers: handlers)
/// task.resume()
/// ```
///
/// Training runs on a background thread; handlers are called on it one at a time, and training
/// waits while a handler runs. Differences from Core ML:
/// - `cancel()` stops after the current mini-batch and the completion handler still gets the
///   model trained so far (`state` is `.cancelling` during that call, `.completed` after).
/// - `resume(withParameters:)` called from a handler applies from the next mini-batch; a value the
///   model does not allow fails the task with an error naming the parameter.
/// - The model URL may be an `.mlmodel` file as well as a compiled `.mlmodelc` folder.
/// - Handlers are released when the task finishes, so tasks do not leak.
public final class MLUpdateTask: MLTask, @unchecked Sendable {
    private let model: MLModel
    private let trainingData: MLBatchProvider
    private var handlers: MLUpdateProgressHandlers?
    private var started = false
    private var cancelRequested = false
    private var failure: Error?
    private var updater: (any ModelUpdater)?
    private var initialOverrides: [MLParameterKey: Any] = [:]

    /// Trains the model at `url`, calling `completionHandler` when done.
    public convenience init(
        forModelAt url: URL, trainingData: MLBatchProvider, configuration: MLModelConfiguration?,
        completionHandler: @escaping (MLUpdateContext) -> Void
    ) throws {
        try self.init(forModelAt: url, trainingData: trainingData, configuration: configuration,
                      progressHandlers: MLUpdateProgressHandlers(forEvents: [], progressHandler: nil, completionHandler: completionHandler))
    }

    /// Trains the model at `url`, calling the handlers at their events and at the end.
    public convenience init(
        forModelAt url: URL, trainingData: MLBatchProvider, configuration: MLModelConfiguration?,
        progressHandlers: MLUpdateProgressHandlers
    ) throws {
        let model = try MLModel(contentsOf: url, configuration: configuration ?? MLModelConfiguration())
        self.init(model: model, trainingData: trainingData, progressHandlers: progressHandlers)
    }

    /// Trains the model at `url` with its default parameters, calling `completionHandler` when done.
    ///
    /// - Parameters:
    ///   - url: An `.mlmodel` file or a compiled `.mlmodelc` folder of an updatable model.
    ///   - trainingData: The examples: each holds the model's training inputs.
    ///   - completionHandler: Called once when training ends; see ``MLUpdateProgressHandlers``.
    /// - Throws: An ``MLModelError`` when the model cannot be loaded.
    public convenience init(forModelAt url: URL, trainingData: MLBatchProvider, completionHandler: @escaping (MLUpdateContext) -> Void) throws {
        try self.init(forModelAt: url, trainingData: trainingData, configuration: nil, completionHandler: completionHandler)
    }

    /// Trains the model at `url` with its default parameters, calling the handlers at their events and at
    /// the end.
    ///
    /// - Parameters:
    ///   - url: An `.mlmodel` file or a compiled `.mlmodelc` folder of an updatable model.
    ///   - trainingData: The examples: each holds the model's training inputs.
    ///   - progressHandlers: The progress and completion handlers.
    /// - Throws: An ``MLModelError`` when the model cannot be loaded.
    public convenience init(forModelAt url: URL, trainingData: MLBatchProvider, progressHandlers: MLUpdateProgressHandlers) throws {
        try self.init(forModelAt: url, trainingData: trainingData, configuration: nil, progressHandlers: progressHandlers)
    }

    /// Trains an already loaded model (an OpenCoreML addition); its configuration's parameters apply.
    ///
    /// - Parameters:
    ///   - model: An updatable model; it is not changed, training works on a copy.
    ///   - trainingData: The examples: each holds the model's training inputs.
    ///   - progressHandlers: The progress and completion handlers.
    public init(model: MLModel, trainingData: MLBatchProvider, progressHandlers: MLUpdateProgressHandlers) {
        self.model = model
        self.trainingData = trainingData
        handlers = progressHandlers
        super.init()
    }

    /// Starts training on a background thread. Does nothing once started.
    public override func resume() {
        resume(withParameters: [:])
    }

    /// Starts training with these parameters overriding the model's, or — from a progress
    /// handler — changes them from the next mini-batch.
    ///
    /// - Parameter parameters: Values for keys of ``MLModelDescription/parameterDescriptionsByKey``,
    ///   such as `[.learningRate: 0.001]`. A value the model does not allow fails the task.
    public func resume(withParameters parameters: [MLParameterKey: Any]) {
        lock.lock()
        if started {
            let updater = self.updater
            lock.unlock()
            guard !parameters.isEmpty else { return }
            do {
                try updater?.schedule(parameters)
            } catch {
                lock.lock()
                failure = error
                lock.unlock()
            }
            return
        }
        started = true
        initialOverrides = parameters
        lock.unlock()
        setState(.running)
        startTrainingThread { [self] in train() }
    }

    /// Stops after the current mini-batch; the completion handler gets the model trained so far.
    public override func cancel() {
        lock.lock()
        cancelRequested = true
        let wasStarted = started
        started = true
        lock.unlock()
        if !wasStarted {
            // Never started: finish at once with the untouched model.
            finish(updater: nil, progress: nil)
        } else if state == .running {
            setState(.cancelling)
        }
    }

    private var shouldStop: Bool {
        lock.lock()
        defer { lock.unlock() }
        return cancelRequested || failure != nil
    }

    private func train() {
        var last: UpdateProgress?
        var updater: (any ModelUpdater)?
        var trained: MLModel?
        do {
            let made = try ModelUpdaters.make(model: model, trainingData: trainingData)
            if !initialOverrides.isEmpty { try made.schedule(initialOverrides) }
            lock.lock()
            self.updater = made
            lock.unlock()
            updater = made
            let events = handlers?.interestedEvents ?? []
            try made.run(events: events.union(.epochEnd), report: { progress in
                if progress.event == .epochEnd { last = progress }
                guard events.contains(progress.event), let handler = handlers?.progressHandler else { return }
                handler(context(progress.event, progress: progress, updater: made))
            }, shouldStop: { shouldStop })
        } catch {
            lock.lock()
            failure = failure ?? error
            lock.unlock()
        }
        // The trained weights leave the engine now, so its buffers are freed (and handed back to
        // the system) before the completion handler runs.
        trained = updater?.trainedModel()
        let parameters = updater?.parameterValues
        lock.lock()
        self.updater = nil
        lock.unlock()
        updater = nil
        releaseFreedMemory()
        finish(updater: nil, progress: last, trained: trained, parameters: parameters)
    }

    private func context(
        _ event: MLUpdateProgressEvent, progress: UpdateProgress?, updater: (any ModelUpdater)?, trained: MLModel? = nil,
        parameters: [MLParameterKey: Any]? = nil
    ) -> MLUpdateContext {
        let model = self.model
        return MLUpdateContext(
            task: self, event: event, metrics: progress?.metrics ?? [:],
            parameters: parameters ?? updater?.parameterValues ?? UpdateSettings(model: model).values,
            model: { trained ?? updater?.trainedModel() ?? model })
    }

    private func finish(updater: (any ModelUpdater)?, progress: UpdateProgress?, trained: MLModel? = nil,
                        parameters: [MLParameterKey: Any]? = nil) {
        lock.lock()
        let error = failure
        let cancelled = cancelRequested
        let handlers = self.handlers
        self.handlers = nil
        self.updater = nil
        lock.unlock()
        if let error {
            setState(.failed, error: error)
        } else {
            setState(cancelled ? .cancelling : .completed)
        }
        handlers?.completionHandler(context([], progress: progress, updater: updater, trained: trained, parameters: parameters))
        if error == nil { setState(.completed) }
        signalFinished()
    }
}
