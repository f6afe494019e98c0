import Foundation

/// A long-running piece of work (an update) with a state, an error and start/cancel controls.
open class MLTask: @unchecked Sendable {
    /// A unique identifier of this task.
    public let taskIdentifier: String
    let lock = NSLock()
    private var currentState: MLTaskState = .suspended
    private var currentError: Error?

    init() {
        taskIdentifier = UUID().uuidString
    }

    /// Where the task is in its life: suspended until resumed, then running, then completed or failed.
    public var state: MLTaskState {
        lock.lock()
        defer { lock.unlock() }
        return currentState
    }

    /// The error that stopped the task, when `state` is `.failed`.
    public var error: Error? {
        lock.lock()
        defer { lock.unlock() }
        return currentError
    }

    func setState(_ state: MLTaskState, error: Error? = nil) {
        lock.lock()
        currentState = state
        if let error { currentError = error }
        lock.unlock()
    }

    /// Releases ``waitUntilFinished()``: called once the completion handler has returned.
    func signalFinished() {
        finished.lock()
        isFinished = true
        finished.broadcast()
        finished.unlock()
    }

    private let finished = NSCondition()
    private var isFinished = false

    /// Blocks the calling thread until the task has completed or failed and its completion handler
    /// has returned (an OpenCoreML addition, like `Operation.waitUntilFinished()`, for tools and
    /// scripts). Call it after `resume()`, never from a handler of the same task.
    ///
    /// ```swift
    /// let task = try MLUpdateTask(forModelAt: url, trainingData: examples, completionHandler: { context in
    ///     try? context.model.write(to: trainedURL)
    /// })
    /// task.resume()
    /// task.waitUntilFinished()
    /// ```
    public func waitUntilFinished() {
        finished.lock()
        while !isFinished { finished.wait() }
        finished.unlock()
    }

    /// Starts the task (again, if it was suspended).
    open func resume() {}

    /// Asks the task to stop.
    open func cancel() {}
}
