extension ProgramPlan {
    /// One run's state: a tensor per slot (nil until a step or input fills it) and the loop
    /// iterations taken so far, checked against the plan's limit.
    struct Frame {
        private var slots: [MILTensor?]
        private(set) var iterations = 0
        let iterationLimit: Int

        init(slotCount: Int, iterationLimit: Int) {
            slots = [MILTensor?](repeating: nil, count: slotCount)
            self.iterationLimit = iterationLimit
        }

        subscript(_ slot: Int) -> MILTensor? {
            get { slots[slot] }
            set { slots[slot] = newValue }
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
    }
}
