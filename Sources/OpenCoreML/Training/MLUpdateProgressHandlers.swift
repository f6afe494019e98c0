/// The closures an update task calls: `progressHandler` at the chosen events, `completionHandler`
/// once at the end (after success, failure or cancellation).
public final class MLUpdateProgressHandlers: @unchecked Sendable {
    let interestedEvents: MLUpdateProgressEvent
    let progressHandler: ((MLUpdateContext) -> Void)?
    let completionHandler: (MLUpdateContext) -> Void

    public init(
        forEvents interestedEvents: MLUpdateProgressEvent, progressHandler: ((MLUpdateContext) -> Void)?,
        completionHandler: @escaping (MLUpdateContext) -> Void
    ) {
        self.interestedEvents = interestedEvents
        self.progressHandler = progressHandler
        self.completionHandler = completionHandler
    }
}
