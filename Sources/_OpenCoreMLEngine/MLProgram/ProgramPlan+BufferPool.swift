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

        /// A buffer of exactly `count` values (old values in it), nil when the pool has none.
        mutating func take(_ count: Int) -> [Float]? {
            asked.insert(count)
            return free[count]?.popLast()
        }

        mutating func give(_ values: [Float]) {
            guard !values.isEmpty else { return }
            free[values.count, default: []].append(values)
        }

        /// Drops the buffers of sizes nothing asked for since the last trim, so a program run on
        /// inputs of a new size does not keep the old size's buffers too.
        mutating func trim() {
            free = free.filter { asked.contains($0.key) }
            asked = []
        }
    }

    /// The pools of finished runs, each handed to one run at a time: concurrent predictions each
    /// take their own, and at most ``capacity`` are kept.
    final class BufferPools: @unchecked Sendable {
        static let capacity = 4
        private let lock = NSLock()
        private var pools: [BufferPool] = []

        func take() -> BufferPool {
            lock.withLock { pools.popLast() } ?? BufferPool()
        }

        func give(_ pool: BufferPool) {
            var pool = pool
            pool.trim()
            lock.withLock { if pools.count < Self.capacity { pools.append(pool) } }
        }
    }
}
