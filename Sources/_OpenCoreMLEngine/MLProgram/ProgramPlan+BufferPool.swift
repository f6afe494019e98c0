import Foundation

extension ProgramPlan {
    /// Step output buffers no slot holds any more, by value count, for later steps and later runs
    /// to fill instead of allocating new ones: a fixed-shape program allocates its tensors on its
    /// first run and reuses them on every run after it.
    ///
    /// A buffer may still share its storage with a value the pool cannot see (a constant an
    /// `identity` passed on); filling it then copies it first, as any Swift array does, so reuse
    /// never changes a value someone else holds.
    struct BufferPool {
        private var free: [Int: [[Float]]] = [:]
        /// The sizes asked for since the last ``trim()``.
        private var asked: Set<Int> = []
        /// The values the pool's buffers hold in all.
        private(set) var values = 0

        /// The bytes the pool's buffers hold (what it keeps reserved from the model's budget).
        var bytes: Int { values * MemoryLayout<Float>.size }

        /// A buffer of exactly `count` values (old values in it), nil when the pool has none.
        mutating func take(_ count: Int) -> [Float]? {
            asked.insert(count)
            guard let buffer = free[count]?.popLast() else { return nil }
            values -= count
            return buffer
        }

        mutating func give(_ buffer: [Float]) {
            guard !buffer.isEmpty else { return }
            free[buffer.count, default: []].append(buffer)
            values += buffer.count
        }

        /// Drops the buffers of sizes nothing asked for since the last trim, so a program run on
        /// inputs of a new size does not keep the old size's buffers too.
        mutating func trim() {
            free = free.filter { asked.contains($0.key) }
            values = free.reduce(0) { $0 + $1.key * $1.value.count }
            asked = []
        }
    }

    /// The pools of finished runs, each handed to one run at a time: concurrent predictions each
    /// take their own, and at most ``capacity`` are kept. What the kept pools hold stays reserved
    /// from the model's budget; a pool dropped gives its bytes back.
    final class BufferPools: @unchecked Sendable {
        static let capacity = 4
        private let lock = NSLock()
        private var pools: [BufferPool] = []
        private let budget: MemoryBudget

        init(budget: MemoryBudget) {
            self.budget = budget
        }

        deinit {
            budget.release(pools.reduce(0) { $0 + $1.bytes })
        }

        func take() -> BufferPool {
            lock.withLock { pools.popLast() } ?? BufferPool()
        }

        /// Keeps `pool` (trimmed) for a later run, whose buffers were `reservedBefore` bytes when
        /// the run took it, to which the run added `reservedByRun`: the budget is left holding
        /// exactly what the kept pool holds.
        func give(_ pool: BufferPool, reservedBefore: Int, reservedByRun: Int) {
            var pool = pool
            pool.trim()
            let kept = lock.withLock { () -> Bool in
                guard pools.count < Self.capacity else { return false }
                pools.append(pool)
                return true
            }
            let held = kept ? pool.bytes : 0
            let reserved = reservedBefore + reservedByRun
            if held > reserved { budget.account(held - reserved) } else { budget.release(reserved - held) }
        }
    }
}
