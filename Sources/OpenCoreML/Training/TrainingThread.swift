import Foundation
import _OpenCoreMLEngine

/// Runs `body` off the caller's thread, where updates train, on a thread with room for a deep
/// stack. Threads are kept for the next update (they end after 30 idle seconds): the C
/// allocator gives each new thread an arena of its own and keeps what was freed there, so a
/// process running update after update on fresh threads would grow. When `body` returns, the
/// memory the update freed goes back to the system.
func startTrainingThread(_ body: @escaping @Sendable () -> Void) {
    UpdateThreads.shared.run(body)
}

/// The threads updates run on: an idle one takes the next update, or a new one starts.
private final class UpdateThreads: @unchecked Sendable {
    static let shared = UpdateThreads()

    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var idle = 0

    func run(_ body: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(body)
        // Every waiting job needs a thread: an idle one, or a new one.
        if jobs.count > idle {
            let thread = Thread { [self] in work() }
            thread.stackSize = 8 << 20
            thread.name = "OpenCoreML.update"
            thread.start()
        } else {
            condition.signal()
        }
        condition.unlock()
    }

    private func work() {
        condition.lock()
        while true {
            while jobs.isEmpty {
                idle += 1
                let signalled = condition.wait(until: Date(timeIntervalSinceNow: 30))
                idle -= 1
                if !signalled && jobs.isEmpty {
                    condition.unlock()
                    return
                }
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
            releaseFreedMemory()
            condition.lock()
        }
    }
}
