import Foundation

/// Holds a model's compiled runner, made once on first use (thread-safe).
final class RunnerCache: @unchecked Sendable {
    private let lock = NSLock()
    private var runner: NeuralNetworkRunner?

    func runner(_ make: () throws -> NeuralNetworkRunner) throws -> NeuralNetworkRunner {
        lock.lock()
        defer { lock.unlock() }
        if let runner { return runner }
        let made = try make()
        runner = made
        return made
    }
}
