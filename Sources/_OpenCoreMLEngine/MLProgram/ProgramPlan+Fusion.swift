import CoreMLSpec
import _OpenCoreMLKernels

/// The activation an ML Program step runs on its own output (``OperationContext/fusedActivation``):
/// the one ``Activation`` type, under the name the convolution's step reads it by.
typealias MILFusedActivation = Activation

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
    static func fusion(at index: Int, in operations: [CoreML_Specification_MILSpec_Operation],
                       readers: [String: Int]?) -> (activation: Activation, output: CoreML_Specification_MILSpec_NamedValueType)? {
        guard let readers, index + 1 < operations.count else { return nil }
        let (first, next) = (operations[index], operations[index + 1])
        guard let producer = ActivationProducer(milType: first.type), first.outputs.count == 1, first.blocks.isEmpty,
              let activation = Activation(parameterlessMILType: next.type), producer.absorbs(activation),
              next.outputs.count == 1, next.inputs.count == 1,
              let x = next.inputs["x"]?.arguments, x.count == 1, case .name(let name)? = x[0].binding,
              name == first.outputs[0].name, readers[name] == 1 else { return nil }
        return (activation, next.outputs[0])
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
    static func preluPatterns(in operations: [CoreML_Specification_MILSpec_Operation], readers: [String: Int]?) -> [Int: PReLUPattern] {
        guard let readers else { return [:] }
        var producers: [String: Int] = [:]
        for (index, operation) in operations.enumerated() where operation.outputs.count == 1 && operation.blocks.isEmpty {
            producers[operation.outputs[0].name] = index
        }
        /// The single argument bound to `parameter` of `operation`.
        func binding(_ operation: CoreML_Specification_MILSpec_Operation, _ parameter: String) -> CoreML_Specification_MILSpec_Argument.Binding? {
            guard let arguments = operation.inputs[parameter]?.arguments, arguments.count == 1 else { return nil }
            return arguments[0]
        }
        func name(_ binding: CoreML_Specification_MILSpec_Argument.Binding?) -> String? {
            if case .name(let name)? = binding?.binding { return name }
            return nil
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
            // Which side is x and whether the condition is "x is positive" (then a is x).
            let positive: Bool, x: String, zero: CoreML_Specification_MILSpec_Argument.Binding
            switch comparison.type {
            case "greater_equal", "greater":
                if let n = name(left), name(right) != n { (positive, x, zero) = (true, n, right) } else if let n = name(right) { (positive, x, zero) = (false, n, left) } else { continue }
            case "less_equal", "less":
                if let n = name(right), name(left) != n { (positive, x, zero) = (true, n, left) } else if let n = name(left) { (positive, x, zero) = (false, n, right) } else { continue }
            default: continue
            }
            let (passThrough, scaled) = positive ? (binding(select, "a"), binding(select, "b")) : (binding(select, "b"), binding(select, "a"))
            guard name(passThrough) == x, let productIndex = soleProducer(of: scaled), productIndex != comparisonIndex else { continue }
            let product = operations[productIndex]
            guard product.type == "mul", product.inputs.count == 2, let p = binding(product, "x"), let q = binding(product, "y") else { continue }
            let alpha: CoreML_Specification_MILSpec_Argument.Binding
            if name(p) == x, name(q) != x { alpha = q } else if name(q) == x, name(p) != x { alpha = p } else { continue }
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
              case .tensorType(let declared)? = types[pattern.x]?.type, declared.rank >= alpha.shape.count,
              alpha.shape.filter({ $0 != 1 }).count <= 1 else { return nil }
        let rank = Int(declared.rank)
        let padded = Array(repeating: 1, count: rank - alpha.shape.count) + alpha.shape
        let axis = padded.firstIndex { $0 != 1 }
        let slopes = alpha.values
        let output = operations[pattern.select].outputs[0]
        /// PReLU over `values` (`shape`), from `x` into `y` (which may be `x`).
        let run: @Sendable (UnsafePointer<Float>, UnsafeMutablePointer<Float>, [Int], OperationContext) throws -> Void = { x, y, shape, context in
            var plane = 1
            if let axis {
                guard shape.count == rank, shape[axis] == slopes.count else {
                    throw context.fail("x \(shape) does not take \(slopes.count) slopes along axis \(axis) (its declared rank is \(rank))")
                }
                plane = shape[(axis + 1)...].reduce(1, *)
            }
            ocm_prelu(x, y, shape.reduce(1, *), slopes, slopes.count, plane)
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
        let context = context(for: operations[pattern.select], at: at)
        guard let x = argument(named: pattern.x) else { return nil }
        try reservations.reserve(ProgramPlan.stepBytes, for: at)
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
    /// - Casts to integer types and bool round and are kept, as are casts whose output is declared
    ///   fp16 and leaves the block (a model output declared fp16 holds float16 values).
    func removableCast(_ operation: CoreML_Specification_MILSpec_Operation, blockOutputs: Set<String>, at place: String) -> String? {
        guard operation.type == "cast", operation.outputs.count == 1, !blockOutputs.contains(operation.outputs[0].name),
              let x = operation.inputs["x"]?.arguments, x.count == 1, case .name(let source)? = x[0].binding, slots[source] != nil,
              let dtype = operation.inputs["dtype"]?.arguments, dtype.count == 1 else { return nil }
        let type: String?
        switch dtype[0].binding {
        case .name(let name)?:
            if case .constant(.strings(let strings))? = argument(named: name) { type = strings.first } else { type = nil }
        case .value(let value)?:
            if case .strings(let strings)? = try? MILConstant(value, at: place, limit: 16) { type = strings.first } else { type = nil }
        case nil: type = nil
        }
        switch type {
        case "fp32": return source
        case "fp16":
            guard case .tensorType(let tensor)? = types[source]?.type, [.float32, .float16].contains(tensor.dataType) else { return nil }
            return source
        default: return nil
        }
    }
}
