/// Where a task is in its life.
public enum MLTaskState: Int, Sendable, CustomStringConvertible {
    /// Made but not started (or not yet resumed).
    case suspended = 1
    /// Training on its background thread.
    case running = 2
    /// `cancel()` was called; the task stops after the current mini-batch.
    case cancelling = 3
    /// Finished, normally or after cancellation; the completion handler has been called.
    case completed = 4
    /// Stopped by an error; see `MLTask.error`.
    case failed = 5

    /// The state's name, such as `running`.
    public var description: String {
        switch self {
        case .suspended: return "suspended"
        case .running: return "running"
        case .cancelling: return "cancelling"
        case .completed: return "completed"
        case .failed: return "failed"
        }
    }
}
