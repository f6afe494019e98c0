import CoreMLSpec

extension ProgramPlan {
    /// A block's steps in order, and after each one the slots it is the last in the block to
    /// read: the run releases them then (see ``Frame/release(_:)``), so a tensor lives only as
    /// long as a later step needs it, and its buffer serves the steps after it.
    struct StepList {
        var steps: [Step] = []
        var releases: [[Int]] = []
        /// What each step computes, for profiles: the value it makes and its operation type
        /// ("conv + relu" for a fused pair).
        var labels: [(name: String, type: String)] = []

        func run(_ frame: inout Frame) throws {
            for (step, released) in zip(steps, releases) {
                try step(&frame)
                for slot in released { frame.release(slot) }
            }
        }

        /// ``run(_:)`` with `clock` read around every step, each step's seconds added to `seconds`.
        func run(_ frame: inout Frame, timing clock: LayerTimings.Clock, into seconds: inout [Double]) throws {
            for index in steps.indices {
                let start = clock.seconds()
                try steps[index](&frame)
                seconds[index] += clock.seconds() - start
                for slot in releases[index] { frame.release(slot) }
            }
        }
    }
}

extension ProgramPlan.Builder {
    /// The most operations ``namesRead(_:)`` visits, nested blocks included.
    static let readBudget = 100_000

    /// The names each operation of a block reads: its inputs' names, and every name the blocks
    /// nested in it read (their operations' inputs and their outputs; a name a nested block
    /// defines for itself is counted too, which only keeps an outer value of the same name alive
    /// longer). Nil when the block and its nested blocks hold more than ``readBudget``
    /// operations (nested blocks may share one message many times over); then nothing in the
    /// block is fused or released early.
    static func namesRead(_ operations: [CoreML_Specification_MILSpec_Operation]) -> [[String]]? {
        var budget = readBudget
        func collect(_ operation: CoreML_Specification_MILSpec_Operation, into names: inout [String]) -> Bool {
            for argument in operation.inputs.values {
                for binding in argument.arguments {
                    if case .name(let name)? = binding.binding { names.append(name) }
                }
            }
            for block in operation.blocks {
                budget -= block.operations.count
                guard budget >= 0 else { return false }
                names += block.outputs
                for nested in block.operations { guard collect(nested, into: &names) else { return false } }
            }
            return true
        }
        budget -= operations.count
        guard budget >= 0 else { return nil }
        var result: [[String]] = []
        for operation in operations {
            var names: [String] = []
            guard collect(operation, into: &names) else { return nil }
            result.append(names)
        }
        return result
    }

    /// Appends to `list` the releases of the slots `filled` (by steps of this block, in order):
    /// each after the step that reads it last (`lastReader`, the step that filled it when none
    /// does), except those the block yields as `kept`.
    static func scheduleReleases(_ list: inout ProgramPlan.StepList, filled: [Int], lastReader: [Int: Int], kept: Set<Int>) {
        for slot in filled where !kept.contains(slot) {
            guard let step = lastReader[slot] else { continue }
            list.releases[step].append(slot)
        }
    }
}
