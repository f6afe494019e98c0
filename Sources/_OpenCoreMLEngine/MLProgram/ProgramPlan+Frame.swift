extension ProgramPlan {
    /// One run's state: a tensor per slot (nil until a step or input fills it, nil again once the
    /// plan releases it), the pool step outputs are taken from, and the loop iterations and loop
    /// work done so far, checked against the plan's limits.
    ///
    /// Every buffer the run allocates is first reserved from the model's ``MemoryBudget`` (a pooled
    /// one was reserved when it was made); ``ProgramPlan`` settles the run's reservations when it
    /// ends, keeping only what its pool keeps.
    ///
    /// A released tensor's storage goes back to the pool when no other slot holds it (a `reshape`
    /// shares its input's storage, for one) and the slot is one a step fills (not an input, whose
    /// storage is the caller's). The frame counts how many slots hold each storage to know.
    ///
    /// A slot may hold a list instead (`make_list` and the list operations, see ``MILList``); lists
    /// are kept apart from the tensors, so that reading a tensor's slot costs what it always did.
    struct Frame {
        private var slots: [MILTensor?]
        /// The lists slots hold, by slot; a slot holding a list holds no tensor.
        private var lists: [Int: MILList] = [:]
        /// How many slots hold each storage, by its address, and the values they hold in all.
        private var holders: [UnsafeRawPointer: Int] = [:]
        private(set) var statistics = RunStatistics()
        private(set) var iterations = 0
        let iterationLimit: Int
        /// The work `while_loop`s have done in this run (see ``countWork(_:at:)``) and the most they may do.
        private(set) var loopWork = 0
        let loopWorkLimit: Int
        /// How many `while_loop`s are running (their condition or body): work is counted inside them.
        var loopDepth = 0
        private let poolable: [Bool]
        var pool: BufferPool
        let budget: MemoryBudget
        /// The bytes this run reserved from `budget` for the buffers it allocated.
        private(set) var reservedBytes = 0

        init(poolable: [Bool], pool: BufferPool, budget: MemoryBudget, iterationLimit: Int, loopWorkLimit: Int) {
            slots = [MILTensor?](repeating: nil, count: poolable.count)
            self.poolable = poolable
            self.pool = pool
            self.budget = budget
            self.iterationLimit = iterationLimit
            self.loopWorkLimit = loopWorkLimit
        }

        subscript(_ slot: Int) -> MILTensor? {
            get { slots[slot] }
            set {
                if let old = slots[slot] { _ = letGo(old) }
                if let newValue { hold(newValue) }
                slots[slot] = newValue
            }
        }

        /// Lets `body` change the values of the tensor in `slot` in place (an activation fused into
        /// the step that filled it); storage another slot shares is copied first. Nothing happens
        /// for an empty slot.
        mutating func modify(_ slot: Int, _ body: (UnsafeMutableBufferPointer<Float>, [Int]) throws -> Void) rethrows {
            guard var tensor = self[slot] else { return }
            self[slot] = nil  // the frame lets go, so the storage is the tensor's alone unless shared
            let shape = tensor.shape
            try tensor.values.withUnsafeMutableBufferPointer { try body($0, shape) }
            self[slot] = tensor
        }

        /// Empties `slot` (no step reads it again); its storage goes back to the pool if nothing
        /// else holds it.
        mutating func release(_ slot: Int) {
            guard let tensor = slots[slot] else {
                if !lists.isEmpty { lists[slot] = nil }
                return
            }
            slots[slot] = nil
            if letGo(tensor) && poolable[slot] { pool.give(tensor.values) }
        }

        /// The list in `slot`, nil when it holds none.
        func list(_ slot: Int) -> MILList? { lists[slot] }

        /// Puts `list` in `slot` (letting go of a tensor there).
        mutating func setList(_ list: MILList, at slot: Int) {
            self[slot] = nil
            lists[slot] = list
        }

        /// What `argument` reads, tensor or list (control flow passes both on); an empty tensor
        /// for a slot that holds neither, as ``MILOperations/fetch(_:_:)`` reads it.
        func value(_ argument: Argument) -> MILValue {
            if case .slot(let slot) = argument, slots[slot] == nil, let list = lists[slot] { return .list(list) }
            return .tensor(MILOperations.fetch(argument, self))
        }

        /// Puts `value` in `slot`, tensor or list.
        mutating func setValue(_ value: MILValue, at slot: Int) {
            switch value {
            case .tensor(let tensor):
                if !lists.isEmpty { lists[slot] = nil }
                self[slot] = tensor
            case .list(let list):
                setList(list, at: slot)
            }
        }

        /// Reserves `bytes` from the budget for what a list grows by (see ``MILList``); like a new
        /// buffer's, the reservation is settled when the run ends.
        mutating func reserve(_ bytes: Int, at place: String) throws {
            try budget.reserve(bytes, for: place)
            reservedBytes += bytes
        }

        /// A zero-filled buffer for a tensor of `shape`, checked against the plan's limit: a pooled
        /// one of the same size when there is one, else a new one.
        mutating func buffer(_ shape: [Int], _ context: OperationContext) throws -> [Float] {
            let count = try MILTensor.checkedCount(shape, limit: context.limit, context.place)
            guard var values = try take(count, context) else { return [Float](repeating: 0, count: count) }
            values.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
            return values
        }

        /// A buffer for a tensor of `shape` whose every value the caller writes before reading any
        /// (its old values are left as they are), checked against the plan's limit.
        mutating func unfilledBuffer(_ shape: [Int], _ context: OperationContext) throws -> [Float] {
            let count = try MILTensor.checkedCount(shape, limit: context.limit, context.place)
            return try take(count, context) ?? [Float](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
        }

        /// A pooled buffer of `count` values, nil when the pool has none (counted either way); a
        /// new one's bytes are reserved from the budget first. Inside a loop, the values count as
        /// work (``valueWork`` each).
        private mutating func take(_ count: Int, _ context: OperationContext) throws -> [Float]? {
            if loopDepth > 0 { try countWork(count * ProgramPlan.valueWork, at: context.place) }
            if let values = pool.take(count) {
                statistics.reusedBuffers += 1
                return values
            }
            let bytes = count * MemoryLayout<Float>.size
            try budget.reserve(bytes, for: context.place)
            reservedBytes += bytes
            statistics.newBuffers += 1
            return nil
        }

        /// Counts a product of `factors` multiply-adds (a matrix product's rows × columns × depth)
        /// for the step of `context` as ``countWork(_:at:)`` does; an overflowing product is past
        /// any limit.
        mutating func countMultiplyAdds(_ factors: Int..., context: OperationContext) throws {
            guard loopDepth > 0 else { return }
            var product = 1
            for factor in factors {
                let (next, overflow) = product.multipliedReportingOverflow(by: max(factor, 0))
                product = overflow ? .max : next
            }
            try countWork(product, at: context.place)
        }

        /// Adds `work` multiply-adds (or their equivalent) done by the step at `place` to the
        /// run's loop work when a `while_loop` is running; past ``loopWorkLimit`` the run ends.
        ///
        /// - Throws: `EngineError` naming `place` once the loops have done more than the limit.
        mutating func countWork(_ work: Int, at place: String) throws {
            guard loopDepth > 0 else { return }
            let (total, overflow) = loopWork.addingReportingOverflow(max(work, 0))
            // Deliberately unlike Core ML, which sets no limit: a loop bounded in iterations but not in work is an error, not a hang.
            guard !overflow, total <= loopWorkLimit else {
                throw EngineError("\(place): the loops of one prediction did more than \(loopWorkLimit) multiply-adds' worth of work (the loop work limit)")
            }
            loopWork = total
        }

        /// Gives a step's scratch buffer (one no slot holds) back to the pool once the step is done with it.
        mutating func recycle(_ scratch: [Float]) {
            pool.give(scratch)
        }

        /// Counts one loop iteration for the operation at `place`.
        ///
        /// - Throws: `EngineError` naming `place` once the run has taken `iterationLimit`.
        mutating func countIteration(at place: String) throws {
            // Deliberately unlike Core ML, which sets no limit: a loop that never ends is an error, not a hang.
            guard iterations < iterationLimit else {
                throw EngineError("\(place): more than \(iterationLimit) loop iterations in one prediction (the iteration limit; does the loop's condition ever turn false?)")
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
