import Foundation

/// One memory limit that everything a loaded model holds draws from: its compiled program and
/// constants, the tensors its predictions hold at once (concurrent predictions together) and the
/// buffers kept between predictions. Whoever is about to allocate reserves the bytes first and
/// gives them back when the memory is freed; a reservation past the limit is an error naming what
/// asked and how much is in use, and nothing is allocated.
///
/// ```swift
/// let budget = MemoryBudget(limit: 1 << 30)
/// try budget.reserve(4 * count, for: "operation 3 (fill → y)")
/// defer { budget.release(4 * count) }
/// ```
///
/// Thread-safe: a model's concurrent predictions share one budget.
package final class MemoryBudget: @unchecked Sendable {
    /// The most bytes reservations may hold at once.
    package let limit: Int
    private let lock = NSLock()
    private var used = 0
    private var peak = 0

    package init(limit: Int) {
        self.limit = max(limit, 0)
    }

    /// The bytes reserved now.
    package var usedBytes: Int { lock.withLock { used } }

    /// The most bytes reserved at once so far.
    package var peakBytes: Int { lock.withLock { peak } }

    /// The bytes still free.
    package var availableBytes: Int { lock.withLock { limit - used } }

    /// Reserves `bytes` for `what` (a place in the model, named in the error).
    ///
    /// - Throws: ``EngineError/memoryLimit(place:requested:inUse:limit:)`` when the reservation would pass the limit; nothing is
    ///   reserved then.
    package func reserve(_ bytes: Int, for what: @autoclosure () -> String) throws {
        guard bytes > 0 else { return }
        let inUse: Int? = lock.withLock {
            let (total, overflow) = used.addingReportingOverflow(bytes)
            guard !overflow, total <= limit else { return used }
            used = total
            peak = max(peak, used)
            return nil
        }
        if let inUse {
            throw EngineError.memoryLimit(place: what(), requested: bytes, inUse: inUse, limit: limit)
        }
    }

    /// Reserves `bytes` whatever the limit: memory that is already allocated and stays (a buffer a
    /// run handed to its pool without having reserved it), so that later reservations see it.
    package func account(_ bytes: Int) {
        guard bytes > 0 else { return }
        lock.withLock {
            used = used.addingReportingOverflow(bytes).overflow ? .max : used + bytes
            peak = max(peak, used)
        }
    }

    /// Gives back `bytes` reserved earlier.
    package func release(_ bytes: Int) {
        guard bytes > 0 else { return }
        lock.withLock { used = max(used - bytes, 0) }
    }
}
