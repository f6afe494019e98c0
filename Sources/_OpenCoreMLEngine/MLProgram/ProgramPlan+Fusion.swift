import CoreMLSpec
import _OpenCoreMLKernels

extension ProgramPlan.Builder {
    /// How many times each name is read in a block: by its operations (nested blocks included,
    /// as ``namesRead(_:)`` counts them) and by the block's own `outputs`; nil when `reads` is
    /// (a block over the read budget), and then nothing in the block is fused.
    static func readerCounts(_ reads: [[String]]?, outputs: [String]) -> [String: Int]? {
        guard let reads else { return nil }
        var counts: [String: Int] = [:]
        for name in outputs + reads.joined() { counts[name, default: 0] += 1 }
        return counts
    }

    /// The activation `operations[index + 1]` applies to `operations[index]`'s only output when
    /// it can run inside that operation (``ActivationProducer``'s rule): the second is an
    /// activation with no argument but `x`, `x` is that output, and nothing else reads the output.
    /// Returns the activation and the value it defines (which the fused step writes).
    ///
    /// Also a `prelu` after an `add` (BlazeFace's and BlazePalm's blocks end so): the sum's step
    /// applies the slopes (its `alpha`, which the caller reads as a constant) to the sum in place.
    static func fusion(at index: Int, in operations: [CoreML_Specification_MILSpec_Operation],
                       readers: [String: Int]?) -> (activation: Activation, output: CoreML_Specification_MILSpec_NamedValueType)? {
        guard let readers, index + 1 < operations.count else { return nil }
        let (first, next) = (operations[index], operations[index + 1])
        let activation = next.type == "prelu" && first.type == "add" && next.inputs.count == 2 && next.inputs["alpha"] != nil
            ? Activation.prelu : Activation(parameterlessMILType: next.type)
        guard let producer = ActivationProducer(milType: first.type), first.outputs.count == 1, first.blocks.isEmpty,
              let activation, activation == .prelu || (producer.absorbs(activation) && next.inputs.count == 1),
              next.outputs.count == 1,
              let x = next.inputs["x"]?.arguments, x.count == 1, case .name(let name)? = x[0].binding,
              name == first.outputs[0].name, readers[name] == 1 else { return nil }
        return (activation, next.outputs[0])
    }
}

// MARK: - Patterns of several operations

extension ProgramPlan.Builder {
    /// A pattern of operations that runs as one step, held at its last operation's index.
    enum FusedPattern {
        case prelu(PReLUPattern)
        case hardSwish(HardSwishPattern)

        /// The indices compiled later than their place (at the last operation), or not at all.
        var deferred: [Int] {
            switch self {
            case .prelu(let pattern): pattern.deferred
            case .hardSwish(let pattern): pattern.deferred
            }
        }

        /// What a profile calls the step.
        var label: String {
            switch self {
            case .prelu(let pattern): pattern.convolution == nil ? "select (prelu)" : "conv + select (prelu)"
            case .hardSwish(let pattern): pattern.convolution == nil ? "mul (hardswish)" : "conv + hardswish"
            }
        }
    }

    /// Every pattern of `operations` (PReLU spelled as select, hardswish as three operations), by
    /// the index of its last operation; none when the block is over the read budget.
    func fusedPatterns(in operations: [CoreML_Specification_MILSpec_Operation], readers: [String: Int]?) -> [Int: FusedPattern] {
        preluPatterns(in: operations, readers: readers).mapValues(FusedPattern.prelu)
            .merging(hardSwishPatterns(in: operations, readers: readers).mapValues(FusedPattern.hardSwish)) { first, _ in first }
    }

    /// The one step of `pattern`, nil when its constants do not fit (its operations then run one by one).
    mutating func fusedStep(_ pattern: FusedPattern, in operations: [CoreML_Specification_MILSpec_Operation],
                            place: (Int) -> String) throws -> ProgramPlan.Step? {
        switch pattern {
        case .prelu(let pattern): try preluStep(pattern, in: operations, place: place)
        case .hardSwish(let pattern): try hardSwishStep(pattern, in: operations, place: place)
        }
    }
}

// MARK: - PReLU spelled as select

extension ProgramPlan.Builder {
    /// PReLU as converters spell it, `select(greater_equal(x, 0), x, mul(x, alpha))`, found in a
    /// block so that it runs as one ``Activation/prelu`` step. Also recognised: `greater` for
    /// `greater_equal` (the two differ only in the sign of a zero result), the comparison's
    /// operands swapped (`less_equal(0, x)`, `less(0, x)`), the condition inverted with `a` and `b`
    /// swapped (`select(less(x, 0), mul(x, alpha), x)`), and `mul(alpha, x)`; `alpha` a constant of
    /// one value or one per channel (one axis not 1). For NaN every spelling gives NaN, as PReLU does.
    ///
    /// The comparison and the product are read by the select alone; they are compiled only if the
    /// constants turn out not to fit (``preluStep(_:at:)``). When `x` is made by a `conv` that
    /// nothing else reads, the convolution's step writes the select's output and applies the
    /// PReLU to it in place, while it is still in cache.
    struct PReLUPattern {
        /// The operation indices the pattern covers: the select, the comparison, the product, and
        /// the convolution when it makes `x`.
        let select: Int, comparison: Int, product: Int
        let convolution: Int?
        /// The comparison's constant operand (which must be 0), and the product's (the slopes).
        let zero: CoreML_Specification_MILSpec_Argument.Binding
        let alpha: CoreML_Specification_MILSpec_Argument.Binding
        let x: String

        /// The indices compiled later than their place (at the select), or not at all.
        var deferred: [Int] { [comparison, product] + (convolution.map { [$0] } ?? []) }
    }

    /// Every PReLU pattern of `operations`, by its select's index (empty when the block is over
    /// the read budget, as for ``fusion(at:in:readers:)``).
    func preluPatterns(in operations: [CoreML_Specification_MILSpec_Operation], readers: [String: Int]?) -> [Int: PReLUPattern] {
        guard let readers else { return [:] }
        let producers = Self.producers(of: operations)
        let (binding, name) = (Self.binding, Self.name)
        /// Whether `binding` is a constant: bound in place, made by a `const` of the block, or
        /// a constant of an enclosing block.
        func isConstant(_ binding: CoreML_Specification_MILSpec_Argument.Binding) -> Bool {
            guard let value = name(binding) else { return binding.binding != nil }
            if let index = producers[value] { return operations[index].type == "const" }
            return constants[value] != nil
        }
        /// The operation that makes `binding`'s value, when `reader` is its only reader.
        func soleProducer(of binding: CoreML_Specification_MILSpec_Argument.Binding?) -> Int? {
            guard let value = name(binding), readers[value] == 1, let index = producers[value] else { return nil }
            return index
        }
        var patterns: [Int: PReLUPattern] = [:]
        for (index, select) in operations.enumerated() where select.type == "select" && select.outputs.count == 1 && select.inputs.count == 3 {
            guard let comparisonIndex = soleProducer(of: binding(select, "cond")) else { continue }
            let comparison = operations[comparisonIndex]
            guard comparison.inputs.count == 2, let left = binding(comparison, "x"), let right = binding(comparison, "y") else { continue }
            // Which side is x (the side that is not a constant) and whether the condition is "x is
            // positive" (then a is x): greater(x, 0) and less(0, x) are; greater(0, x) and less(x, 0) are not.
            guard isConstant(left) != isConstant(right), let x = name(isConstant(left) ? right : left) else { continue }
            let zero = isConstant(left) ? left : right
            let positive: Bool
            switch comparison.type {
            case "greater_equal", "greater": positive = !isConstant(left)
            case "less_equal", "less": positive = isConstant(left)
            default: continue
            }
            let (passThrough, scaled) = positive ? (binding(select, "a"), binding(select, "b")) : (binding(select, "b"), binding(select, "a"))
            guard name(passThrough) == x, let productIndex = soleProducer(of: scaled), productIndex != comparisonIndex else { continue }
            let product = operations[productIndex]
            guard product.type == "mul", product.inputs.count == 2, let p = binding(product, "x"), let q = binding(product, "y") else { continue }
            let alpha: CoreML_Specification_MILSpec_Argument.Binding
            if name(p) == x, isConstant(q) { alpha = q } else if name(q) == x, isConstant(p) { alpha = p } else { continue }
            // x read by the comparison, the product and the select only: a convolution making it runs the PReLU itself.
            var convolution: Int?
            if readers[x] == 3, let producer = producers[x], operations[producer].type == "conv", producer < min(comparisonIndex, productIndex) {
                convolution = producer
            }
            patterns[index] = PReLUPattern(select: index, comparison: comparisonIndex, product: productIndex, convolution: convolution,
                                           zero: zero, alpha: alpha, x: x)
        }
        return patterns
    }

    /// The value `binding` holds when it is a constant (bound in place, or a name this builder
    /// defined as a constant); nil otherwise.
    func constantValue(_ binding: CoreML_Specification_MILSpec_Argument.Binding, at place: String) -> MILTensor? {
        switch binding.binding {
        case .name(let name)?:
            guard case .constant(.tensor(let tensor))? = argument(named: name) else { return nil }
            return tensor
        case .value(let value)?:
            return (try? MILConstant(value, at: place, limit: 1 << 16))?.tensor
        case nil:
            return nil
        }
    }

    /// The one step of `pattern` (its select's output the step's), nil when its constants do not
    /// fit a PReLU: the comparison's must be one 0 and the slopes have at most one axis that is not
    /// 1, and no more axes than `x`'s declared rank.
    mutating func preluStep(_ pattern: PReLUPattern, in operations: [CoreML_Specification_MILSpec_Operation],
                            place: (Int) -> String) throws -> ProgramPlan.Step? {
        let at = place(pattern.select)
        guard let zero = constantValue(pattern.zero, at: at), zero.count == 1, zero.values[0] == 0,
              let alpha = constantValue(pattern.alpha, at: at), alpha.count >= 1,
              // x's declared type: the convolution's output, which is never defined, or its own.
              case .tensorType(let declared)? = (pattern.convolution.map { operations[$0].outputs[0].type } ?? types[pattern.x])?.type,
              // The declared rank as the dimensions list counts it (never a size read from the
              // file), at least the constants' so that select's broadcast keeps x's shape.
              case let rank = declared.dimensions.count, rank == Int(clamping: declared.rank),
              rank >= alpha.shape.count, rank >= zero.shape.count,
              alpha.shape.filter({ $0 != 1 }).count <= 1,
              // Finite slopes: at x = 0 select gives 0 where 0·∞ would be NaN.
              alpha.values.allSatisfy(\.isFinite) else { return nil }
        let padded = Array(repeating: 1, count: rank - alpha.shape.count) + alpha.shape
        let axis = padded.firstIndex { $0 != 1 }
        let slopes = alpha.values
        // Slopes along an axis x declares with another (or an unknown) size broadcast x up:
        // not a PReLU of x's shape, so the operations run as written.
        if let axis {
            guard case .constant(let size)? = declared.dimensions[axis].dimension, size.size == UInt64(slopes.count) else { return nil }
        }
        let output = operations[pattern.select].outputs[0]
        /// PReLU over `values` (`shape`), from `x` into `y` (which may be `x`).
        let run: @Sendable (UnsafePointer<Float>, UnsafeMutablePointer<Float>, [Int], OperationContext) throws -> Void = { x, y, shape, context in
            let count = shape.reduce(1, *)
            guard count > 0 else { return }
            // One slope for all: the whole tensor is one plane.
            var plane = count
            if let axis {
                guard shape.count == rank, shape[axis] == slopes.count else {
                    throw context.fail("x \(shape) does not take \(slopes.count) slopes along axis \(axis) (its declared rank is \(rank))")
                }
                plane = shape[(axis + 1)...].reduce(1, *)
            }
            ocm_prelu(x, y, count, slopes, slopes.count, plane)
        }
        if let convolution = pattern.convolution {
            let context = context(for: operations[pattern.select], at: at)
            guard let step = try compile(operations[convolution], fusing: (nil, output), at: place(convolution)), let slot = slots[output.name] else {
                return nil
            }
            return { frame in
                try step(&frame)
                try frame.modify(slot) { values, shape in
                    if let base = values.baseAddress { try run(base, base, shape, context) }
                }
            }
        }
        return try elementwiseStep(reading: pattern.x, writing: operations[pattern.select], at: at, run)
    }
}

extension ProgramPlan.Builder {
    /// A step computing `operation`'s output from the value `x` by `run` (x, y, shape, context)
    /// into a buffer of the run's pool: a fused pattern whose first operation is not a convolution's
    /// to absorb. nil when `x` is not defined here.
    mutating func elementwiseStep(reading x: String, writing operation: CoreML_Specification_MILSpec_Operation, at place: String,
                                  _ run: @escaping @Sendable (UnsafePointer<Float>, UnsafeMutablePointer<Float>, [Int], OperationContext) throws -> Void)
        throws -> ProgramPlan.Step? {
        let context = context(for: operation, at: place)
        guard let x = argument(named: x) else { return nil }
        try reservations.reserve(ProgramPlan.stepBytes, for: place)
        let output = operation.outputs[0]
        let slot = newSlot(named: output.name, type: output.type)
        return { frame in
            let input = MILOperations.fetch(x, frame)
            var values = try frame.unfilledBuffer(input.shape, context)
            if !values.isEmpty {
                try input.values.withUnsafeBufferPointer { x in
                    try values.withUnsafeMutableBufferPointer { try run(x.baseAddress!, $0.baseAddress!, input.shape, context) }
                }
            }
            frame[slot] = MILTensor(shape: input.shape, values: values)
        }
    }
}

// MARK: - Casts in fp16 programs

extension ProgramPlan.Builder {
    /// The value a `cast` passes on unchanged, when the cast can go (its output name then reads
    /// that value): nil to compile it.
    ///
    /// Values are held as float32 whatever their declared type, and the arithmetic runs in float32.
    /// - A cast to fp32 (from fp16, or fp32 itself) changes no value: always removed.
    /// - A cast to fp16 rounds to the nearest float16 value. A converter's fp16 program starts with
    ///   one on every input and ends with a cast back to fp32 on every output, its arithmetic in
    ///   between meant to run in fp16; here it runs in float32 either way, and such a cast is removed
    ///   unless its value is observable (an output of the block). Its rounding would have mattered
    ///   exactly for values float16 does not hold: more than 11 significant bits (changed by at most
    ///   half a float16 step, a relative 2⁻¹¹), beyond ±65504 (it gave ±∞), or below 2⁻¹⁴ in magnitude
    ///   (float16 subnormals keep fewer bits; below 2⁻²⁵ it gave 0). Core ML's fp16 arithmetic would
    ///   round every intermediate result that way too, which this float32 arithmetic does not.
    /// - Casts to integer types and bool round and are kept, as are fp16 casts whose output leaves
    ///   the block (a model output declared fp16 holds float16 values) or is rounded to a whole
    ///   number later (``castsKept(in:outputs:)``).
    func removableCast(_ operation: CoreML_Specification_MILSpec_Operation, kept: Set<String>, at place: String) -> String? {
        guard operation.type == "cast", operation.outputs.count == 1, !kept.contains(operation.outputs[0].name),
              let x = operation.inputs["x"]?.arguments, x.count == 1, case .name(let source)? = x[0].binding, slots[source] != nil else { return nil }
        switch castType(operation, at: place) {
        case "fp32": return source
        case "fp16":
            guard case .tensorType(let tensor)? = types[source]?.type, [.float32, .float16].contains(tensor.dataType) else { return nil }
            return source
        default: return nil
        }
    }

    /// The names whose fp16 casts stay although they lie inside the block: the block's outputs, and
    /// the values read by an operation that rounds to whole numbers (`floor`, `ceil`, `round`,
    /// `floor_div`, `mod`, a cast to an integer type or bool), where the float16 rounding before
    /// could change the result by a whole step (2.9999 is 3 in float16, so `int32` gives 3, not 2).
    func castsKept(in operations: [CoreML_Specification_MILSpec_Operation], outputs: [String]) -> Set<String> {
        var kept = Set(outputs)
        for (index, operation) in operations.enumerated() {
            let rounds: Bool
            switch operation.type {
            case "floor", "ceil", "round", "floor_div", "mod": rounds = true
            case "cast": rounds = !["fp32", "fp16", "fp64"].contains(castType(operation, at: "operation \(index)") ?? "")
            default: rounds = false
            }
            guard rounds else { continue }
            for argument in operation.inputs.values.flatMap(\.arguments) {
                if case .name(let name)? = argument.binding { kept.insert(name) }
            }
        }
        return kept
    }

    /// The `dtype` a `cast` names, when it is a constant string.
    func castType(_ operation: CoreML_Specification_MILSpec_Operation, at place: String) -> String? {
        guard let dtype = operation.inputs["dtype"]?.arguments, dtype.count == 1 else { return nil }
        switch dtype[0].binding {
        case .name(let name)?:
            if case .constant(.strings(let strings))? = argument(named: name) { return strings.first }
            return nil
        case .value(let value)?:
            if case .strings(let strings)? = try? MILConstant(value, at: place, limit: 16) { return strings.first }
            return nil
        case nil: return nil
        }
    }
}

extension ActivationProducer {
    /// The producer an ML Program operation type is, nil for one that fuses nothing.
    init?(milType: String) {
        switch milType {
        case "conv": self = .convolution
        case "add": self = .residualAdd
        default: return nil
        }
    }
}
