import CoreMLSpec

extension ProgramPlan {
    /// What compiling a plan reserves from the model's ``MemoryBudget``: each step
    /// (``ProgramPlan/stepBytes``) and every constant's floats, reserved before a constant is
    /// decoded or decompressed, so the constants of a program count together against the limit.
    /// The plan gives it all back when it goes (or compiling fails).
    final class CompileBudget {
        let budget: MemoryBudget
        /// The bytes reserved so far.
        private(set) var bytes = 0

        init(_ budget: MemoryBudget) {
            self.budget = budget
        }

        /// Reserves `bytes` for `place`.
        func reserve(_ bytes: Int, for place: @autoclosure () -> String) throws {
            try budget.reserve(bytes, for: place())
            self.bytes += bytes
        }

        /// The most floats a constant may still hold: what the budget has left.
        var availableValues: Int { max(budget.availableBytes / MemoryLayout<Float>.size, 0) }

        /// Decodes `value`, its floats reserved first (from its declared shape, so a huge one is
        /// refused before it is decoded).
        func decode(_ value: CoreML_Specification_MILSpec_Value, at place: String) throws -> MILConstant {
            let constant = try MILConstant(value, at: place, limit: availableValues)
            if let tensor = constant.tensor { try reserve(tensor.count * MemoryLayout<Float>.size, for: place) }
            return constant
        }

        /// Reserves the floats of tensors already made (a constexpr operation's outputs, made within
        /// ``availableValues`` each).
        func reserve(_ tensors: [MILTensor], for place: String) throws {
            try reserve(tensors.reduce(0) { $0 + $1.count } * MemoryLayout<Float>.size, for: place)
        }
    }
}
