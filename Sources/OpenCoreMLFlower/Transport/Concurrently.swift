import Foundation

/// Work that runs on its own thread while the caller goes on; ``wait()`` gives its outcome.
final class BackgroundCall: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var failure: Error?

    /// Starts `work` on a new thread named `name`.
    init(_ name: String, _ work: @escaping @Sendable () throws -> Void) {
        let thread = Thread { [self] in
            do { try work() } catch { failure = error }
            done.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Waits until the work has ended (at once when it already has); rethrows what it threw.
    func wait() throws {
        done.wait()
        done.signal()  // for another wait
        if let failure { throw failure }
    }
}

/// Runs `work` on every one of `items`, at most `width` at a time (the calling thread one of the
/// workers), and returns once every started item has ended. After an item throws no other item is
/// started, and the first error is rethrown.
func concurrently<Item: Sendable>(_ items: [Item], width: Int, _ work: @escaping @Sendable (Item) throws -> Void) throws {
    guard items.count > 1, width > 1 else {
        for item in items { try work(item) }
        return
    }
    let queue = WorkQueue()
    @Sendable func drain() {
        while true {
            let index: Int? = queue.lock.withLock {
                guard queue.failure == nil, queue.next < items.count else { return nil }
                defer { queue.next += 1 }
                return queue.next
            }
            guard let index else { return }
            do { try work(items[index]) } catch {
                queue.lock.withLock { if queue.failure == nil { queue.failure = error } }
            }
        }
    }
    let helpers = (1..<min(width, items.count)).map { _ in BackgroundCall("Flower transfer", drain) }
    drain()
    for helper in helpers { try? helper.wait() }
    if let failure = queue.lock.withLock({ queue.failure }) { throw failure }
}

/// What the workers of ``concurrently(_:width:_:)`` share: the next item and the first error.
private final class WorkQueue: @unchecked Sendable {
    let lock = NSLock()
    var next = 0
    var failure: Error?
}
