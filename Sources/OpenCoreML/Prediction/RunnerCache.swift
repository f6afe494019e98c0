import Foundation

/// Holds a model's compiled runner, made once on first use (thread-safe).
final class RunnerCache: @unchecked Sendable {
    private let lock = NSLock()
    private var runner: (any ModelRunner)?

    func runner(_ make: () throws -> any ModelRunner) throws -> any ModelRunner {
        lock.lock()
        defer { lock.unlock() }
        if let runner { return runner }
        let made = try make()
        runner = made
        return made
    }

    /// Installs a runner made elsewhere (a trained model's, built incrementally).
    func install(_ made: any ModelRunner) {
        lock.lock()
        runner = made
        lock.unlock()
    }
}
