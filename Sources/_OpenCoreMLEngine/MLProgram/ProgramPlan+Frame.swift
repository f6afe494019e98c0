extension ProgramPlan {
    /// One run's state: a tensor per slot (nil until a step or input fills it, nil again once the
    /// plan releases it), the pool step outputs are taken from, and the loop iterations taken so
    /// far, checked against the plan's limit.
    ///
    /// A released tensor's storage goes back to the pool when no other slot holds it (a `reshape`
    /// shares its input's storage, for one) and the slot is one a step fills (not an input, whose
    /// storage is the caller's). The frame counts how many slots hold each storage to know.
    struct Frame {
        private var slots: [MILTensor?]
        /// How many slots hold each storage, by its address, and the values they hold in all.
        private var holders: [UnsafeRawPointer: Int] = [:]
        private(set) var statistics = RunStatistics()
        private(set) var iterations = 0
        let iterationLimit: Int
        private let poolable: [Bool]
        var pool: BufferPool

        init(poolable: [Bool], pool: BufferPool, iterationLimit: Int) {
            slots = [MILTensor?](repeating: nil, count: poolable.count)
            self.poolable = poolable
            self.pool = pool
            self.iterationLimit = iterationLimit
        }

        subscript(_ slot: Int) -> MILTensor? {
            get { slots[slot] }
            set {
                if let old = slots[slot] { _ = letGo(old) }
                if let newValue { hold(newValue) }
                slots[slot] = newValue
            }
        }

        /// Empties `slot` (no step reads it again); its storage goes back to the pool if nothing
        /// else holds it.
        mutating func release(_ slot: Int) {
            guard let tensor = slots[slot] else { return }
            slots[slot] = nil
            if letGo(tensor) && poolable[slot] { pool.give(tensor.values) }
        }

        /// A zero-filled buffer for a tensor of `shape`, checked against the plan's limit: a pooled
        /// one of the same size when there is one, else a new one.
        mutating func buffer(_ shape: [Int], _ context: OperationContext) throws -> [Float] {
            let count = try MILTensor.checkedCount(shape, limit: context.limit, context.place)
            guard var values = take(count) else { return [Float](repeating: 0, count: count) }
            values.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
            return values
        }

        /// A buffer for a tensor of `shape` whose every value the caller writes before reading any
        /// (its old values are left as they are), checked against the plan's limit.
        mutating func unfilledBuffer(_ shape: [Int], _ context: OperationContext) throws -> [Float] {
            let count = try MILTensor.checkedCount(shape, limit: context.limit, context.place)
            return take(count) ?? [Float](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
        }

        /// A pooled buffer of `count` values, nil when the pool has none (counted either way).
        private mutating func take(_ count: Int) -> [Float]? {
            let values = pool.take(count)
            if values == nil { statistics.newBuffers += 1 } else { statistics.reusedBuffers += 1 }
            return values
        }

        /// Gives a step's scratch buffer (one no slot holds) back to the pool once the step is done with it.
        mutating func recycle(_ scratch: [Float]) {
            pool.give(scratch)
        }

        /// Counts one loop iteration for the operation at `place`.
        ///
        /// - Throws: `MILProgramError` naming `place` once the run has taken `iterationLimit`.
        mutating func countIteration(at place: String) throws {
            // Deliberately unlike Core ML, which sets no limit: a loop that never ends is an error, not a hang.
            guard iterations < iterationLimit else {
                throw MILProgramError("\(place): more than \(iterationLimit) loop iterations in one prediction (the iteration limit; does the loop's condition ever turn false?)")
            }
            iterations += 1
        }

        private mutating func hold(_ tensor: MILTensor) {
            guard let address = Self.address(tensor) else { return }
            holders[address, default: 0] += 1
            if holders[address] == 1 {
                statistics.liveValues += tensor.count
                statistics.peakLiveValues = max(statistics.peakLiveValues, statistics.liveValues)
            }
        }

        /// Forgets one slot's hold on `tensor`'s storage; true when no slot holds it any more.
        private mutating func letGo(_ tensor: MILTensor) -> Bool {
            guard let address = Self.address(tensor), let count = holders[address] else { return false }
            guard count == 1 else {
                holders[address] = count - 1
                return false
            }
            holders[address] = nil
            statistics.liveValues -= tensor.count
            return true
        }

        private static func address(_ tensor: MILTensor) -> UnsafeRawPointer? {
            tensor.values.withUnsafeBufferPointer { $0.baseAddress.map(UnsafeRawPointer.init) }
        }
    }

    /// What one run of a plan held: the most values its live tensors held at once (each storage
    /// counted once), and how many output buffers it took from the pool and how many it made new.
    package struct RunStatistics: Sendable, Equatable {
        package var peakLiveValues = 0
        package var reusedBuffers = 0
        package var newBuffers = 0
        var liveValues = 0
    }
}
