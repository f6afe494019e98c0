import Foundation

/// What a progress or completion handler sees: the task, the model as trained so far, the event,
/// the metrics and the parameters in use.
public final class MLUpdateContext: @unchecked Sendable {
    /// The task that called the handler; call ``MLUpdateTask/resume(withParameters:)`` on it to change
    /// hyperparameters, or ``MLUpdateTask/cancel()`` to stop.
    public let task: MLUpdateTask
    /// The event that called the handler (empty for the completion handler).
    public let event: MLUpdateProgressEvent
    /// `MLMetricKey` → `Double` / `Int`; see ``MLMetricKey``.
    public let metrics: [MLMetricKey: Any]
    /// The hyperparameters in use: `MLParameterKey` → `Double` / `Int` / `Bool`.
    public let parameters: [MLParameterKey: Any]
    private let makeModel: () -> MLModel
    private let lock = NSLock()
    private var madeModel: MLModel?

    init(task: MLUpdateTask, event: MLUpdateProgressEvent, metrics: [MLMetricKey: Any], parameters: [MLParameterKey: Any], model: @escaping () -> MLModel) {
        self.task = task
        self.event = event
        self.metrics = metrics
        self.parameters = parameters
        makeModel = model
    }

    /// The model with the weights trained so far; write it with `write(to:)`. Made on first access
    /// (read it inside the handler: later accesses see the weights of that moment).
    public var model: MLModel & MLWritable {
        lock.lock()
        defer { lock.unlock() }
        if let madeModel { return madeModel }
        let made = makeModel()
        madeModel = made
        return made
    }
}
