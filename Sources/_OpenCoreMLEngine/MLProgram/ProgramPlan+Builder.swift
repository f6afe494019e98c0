import CoreMLSpec

extension ProgramPlan {
    /// Compiles a block's operations in order into steps: it numbers a slot for every value an
    /// operation makes, keeps constants (decompressed weights included) by name, and remembers
    /// each name's declared type so control flow can check its operands when it is compiled.
    ///
    /// A nested block is compiled by the same builder in a scope of its own (see
    /// ``compileBlock(_:scope:)``): it sees every name defined before its operation, and the names
    /// it defines are undone when it ends, so compiling stays linear in the operation count.
    struct Builder {
        private(set) var slots: [String: Int] = [:]
        private(set) var constants: [String: MILConstant] = [:]
        private(set) var types: [String: CoreML_Specification_MILSpec_ValueType] = [:]
        /// Per slot, whether a step fills it (an input's storage is the caller's, never pooled).
        var filledByStep: [Bool] = []
        var slotCount: Int { filledByStep.count }
        /// Where compiling reserves its steps and constants.
        let reservations: CompileBudget
        /// What `custom_layer` operations compute, by layer name.
        var customOperations: [String: any CustomOperation] = [:]
        /// How many blocks enclose the operations being compiled (0 for the function's body).
        var depth = 0
        /// What each name meant before a nested block defined it, newest last, for
        /// ``endScope(at:)`` to restore.
        private var hidden: [(name: String, slot: Int?, constant: MILConstant?, type: CoreML_Specification_MILSpec_ValueType?)] = []

        init(reservations: CompileBudget) {
            self.reservations = reservations
        }

        /// The most values one tensor may hold: an eighth of the budget's limit in floats.
        var tensorLimit: Int { max(reservations.budget.limit / 8 / MemoryLayout<Float>.size, 1) }

        /// A new slot for the value `name` (hiding an outer value of the same name); `isInput` for
        /// a function's or block's input, which no step fills.
        mutating func newSlot(named name: String, type: CoreML_Specification_MILSpec_ValueType? = nil, isInput: Bool = false) -> Int {
            defer { filledByStep.append(!isInput) }
            remember(name)
            slots[name] = slotCount
            constants[name] = nil
            types[name] = type
            return slotCount
        }

        mutating func define(constant: MILConstant, named name: String, type: CoreML_Specification_MILSpec_ValueType?) {
            remember(name)
            constants[name] = constant
            slots[name] = nil
            types[name] = type
        }

        /// Inside a nested block, notes what `name` means now, to be restored when the block ends.
        private mutating func remember(_ name: String) {
            guard depth > 0 else { return }
            hidden.append((name, slots[name], constants[name], types[name]))
        }

        /// Where a nested block's scope starts (see ``endScope(at:)``).
        var scopeMark: Int { hidden.count }

        /// Undoes every name defined since `mark`, newest first: the enclosing block's names mean
        /// again what they meant before the nested block.
        mutating func endScope(at mark: Int) {
            while hidden.count > mark {
                let (name, slot, constant, type) = hidden.removeLast()
                slots[name] = slot
                constants[name] = constant
                types[name] = type
            }
        }

        /// Where the value `name` is read from, nil when nothing defines it here.
        func argument(named name: String) -> Argument? {
            if let constant = constants[name] { return .constant(constant) }
            return slots[name].map(Argument.slot)
        }

        /// Steps for a block's `operations` (whose values named in `outputs` leave the block);
        /// `scope` starts every error's place (empty for the function's body). An activation that
        /// only reads the operation before it runs inside that operation's step (see ``fusion(at:in:readers:)``).
        /// Each value a step makes is released after the last step of the block that reads it,
        /// unless the block yields it (see ``StepList``).
        mutating func compile(_ operations: [CoreML_Specification_MILSpec_Operation], outputs: [String], scope: String) throws -> StepList {
            let operations = foldingPads(operations, outputs: outputs)
            let reads = Self.namesRead(operations)
            let readers = Self.readerCounts(reads, outputs: outputs)
            let patterns = fusedPatterns(in: operations, readers: readers)
            let deferred = Set(patterns.values.flatMap(\.deferred))
            let castsKept = castsKept(in: operations, outputs: outputs)
            var list = StepList()
            var filled: [Int] = [], lastReader: [Int: Int] = [:]
            func place(_ index: Int) -> String {
                "\(scope)operation \(index) (\(operations[index].type) → \(operations[index].outputs.first?.name ?? "?"))"
            }
            /// The slots operations `covered` read, resolved before they define their outputs (a
            /// name they read is an earlier value).
            func readSlots(_ covered: [Int]) -> [Int] {
                reads.map { reads in covered.flatMap { reads[$0] }.compactMap { slots[$0] } } ?? []
            }
            /// Appends `step`, made for operations `covered` (which read `read`) and filling `made`.
            func append(_ step: @escaping Step, read: [Int], made: [CoreML_Specification_MILSpec_NamedValueType], label: (String, String)) {
                let stepIndex = list.steps.count
                list.steps.append(step)
                list.releases.append([])
                list.labels.append(label)
                for slot in made.compactMap({ slots[$0.name] }) {
                    filled.append(slot)
                    lastReader[slot] = stepIndex
                }
                for slot in read { lastReader[slot] = stepIndex }
            }
            /// Compiles operation `index`, with the activation after it when that fuses; returns the
            /// next index.
            func compileOne(_ index: Int, fusing: Bool = true) throws -> Int {
                let operation = operations[index]
                var fused = fusing ? Self.fusion(at: index, in: operations, readers: readers) : nil
                // A fused PReLU's slopes: a constant, else the prelu runs on its own.
                var slopes: [Float]?
                if fused?.activation == .prelu {
                    slopes = Self.binding(operations[index + 1], "alpha").flatMap { constantValue($0, at: place(index + 1)) }?.values
                    if slopes?.isEmpty ?? true { fused = nil }
                }
                let covered = Array(index..<(index + (fused == nil ? 1 : 2)))
                let read = readSlots(covered)
                if let step = try compile(operation, fusing: fused.map { ($0.activation, $0.output) }, slopes: slopes, at: place(index)) {
                    append(step, read: read, made: fused.map { [$0.output] } ?? operation.outputs,
                           label: (fused?.output.name ?? operation.outputs.first?.name ?? "",
                                   fused == nil ? operation.type : "\(operation.type) + \(operations[index + 1].type)"))
                }
                return covered.last! + 1
            }
            var index = 0
            while index < operations.count {
                if deferred.contains(index) {
                    index += 1
                    continue
                }
                if let source = removableCast(operations[index], kept: castsKept, at: place(index)) {
                    // The cast's output reads its input's slot (see removableCast).
                    alias(operations[index].outputs[0].name, to: source, type: operations[index].outputs[0].type)
                    index += 1
                    continue
                }
                if let pattern = patterns[index] {
                    let covered = [index] + pattern.deferred
                    let read = readSlots(covered)
                    if let step = try fusedStep(pattern, in: operations, place: place) {
                        let output = operations[index].outputs[0]
                        append(step, read: read, made: [output], label: (output.name, pattern.label))
                        index += 1
                        continue
                    }
                    // The constants do not fit: the operations the pattern held back, in their order.
                    for held in pattern.deferred.sorted() { _ = try compileOne(held, fusing: false) }
                }
                index = try compileOne(index)
            }
            if reads != nil {
                Self.scheduleReleases(&list, filled: filled, lastReader: lastReader, kept: Set(outputs.compactMap { slots[$0] }))
            }
            return list
        }

        /// Makes `name` read the slot `source` is in (a removed cast's output).
        private mutating func alias(_ name: String, to source: String, type: CoreML_Specification_MILSpec_ValueType) {
            guard let slot = slots[source] else { return }
            remember(name)
            slots[name] = slot
            constants[name] = nil
            types[name] = type
        }

        /// The step for one operation; nil for one evaluated now (`const`, the constexpr operations).
        /// With `fused`, the step also applies that activation (if any) and fills the activation's
        /// output instead of its own.
        mutating func compile(_ operation: CoreML_Specification_MILSpec_Operation,
                              fusing fused: (activation: Activation?, output: CoreML_Specification_MILSpec_NamedValueType)? = nil,
                              slopes: [Float]? = nil, at place: String) throws -> Step? {
            switch operation.type {
            case "const", "_const_symbolic":
                // coremltools' internal `_const_symbolic` is a const; saved without its pass pipeline it has no value (refused here).
                guard let value = operation.attributes["val"], let output = operation.outputs.first else {
                    throw EngineError("\(place): a \(operation.type) without a value")
                }
                define(constant: try reservations.decode(value, at: place), named: output.name, type: output.type)
                return nil
            case "cond":
                return try compileCond(operation, at: place)
            case "while_loop":
                return try compileWhileLoop(operation, at: place)
            case let type where type.hasPrefix("constexpr_"):
                // Deliberately unlike Core ML, which may keep compressed weights compressed in memory: each is decompressed to float32 once, here.
                // Each output within what the budget has left, and all of them reserved together.
                let values = try MILConstexprOperations.evaluate(operation, constants: constants, place: place,
                                                                 limit: max(reservations.availableValues, 1))
                try reservations.reserve(values, for: place)
                for (output, tensor) in zip(operation.outputs, values) { define(constant: .tensor(tensor), named: output.name, type: output.type) }
                return nil
            default:
                break
            }
            guard operation.blocks.isEmpty else {
                throw EngineError("\(place): '\(operation.type)' holds \(operation.blocks.count) nested blocks; only cond and while_loop take blocks")
            }
            guard let make = MILOperations.table[operation.type] else {
                throw EngineError("\(place): operation type '\(operation.type)' is not supported yet")
            }
            guard operation.outputs.count == 1 || (MILOperations.multipleOutputs.contains(operation.type) && !operation.outputs.isEmpty)
                    || (MILOperations.noOutputs.contains(operation.type) && operation.outputs.isEmpty) else {
                let expected = MILOperations.noOutputs.contains(operation.type) ? "none" : "one"
                throw EngineError("\(place): \(operation.outputs.count) outputs; '\(operation.type)' has \(expected)")
            }
            try refuseListArguments(operation, at: place)
            try reservations.reserve(ProgramPlan.stepBytes, for: place)
            var context = context(for: operation, at: place)
            context.fusedActivation = fused?.activation
            context.fusedSlopes = slopes
            let arguments = try context.arguments(reservations)
            let outputs = (fused.map { [$0.output] } ?? operation.outputs).map { newSlot(named: $0.name, type: $0.type) }
            return try make(arguments, outputs, context)
        }

        func context(for operation: CoreML_Specification_MILSpec_Operation, at place: String) -> OperationContext {
            OperationContext(operation: operation, place: place, builder: self, limit: tensorLimit)
        }
    }
}
