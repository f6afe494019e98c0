/// The closures an update task calls: `progressHandler` at the chosen events, `completionHandler`
/// once at the end (after success, failure or cancellation).
public final class MLUpdateProgressHandlers: @unchecked Sendable {
    let interestedEvents: MLUpdateProgressEvent
    let progressHandler: ((MLUpdateContext) -> Void)?
    let completionHandler: (MLUpdateContext) -> Void

    /// Handlers for an update task.
    ///
    /// - Parameters:
    ///   - interestedEvents: The events at which `progressHandler` is called; empty for none.
    ///   - progressHandler: Called on the training thread at each of `interestedEvents`; training waits
    ///     while it runs.
    ///   - completionHandler: Called once when the task ends, after success, failure or cancellation.
    ///     Its context holds the trained model; `context.task.error` is set when training failed.
    public init(
        forEvents interestedEvents: MLUpdateProgressEvent, progressHandler: ((MLUpdateContext) -> Void)?,
        completionHandler: @escaping (MLUpdateContext) -> Void
    ) {
        self.interestedEvents = interestedEvents
        self.progressHandler = progressHandler
        self.completionHandler = completionHandler
    }
}
