import CoreMLSpec
import Foundation
import _OpenCoreMLKernels

/// The operations an ML Program may use, by MIL type: each compiles its arguments into a step.
/// Shapes are checked when a step runs (inputs may have flexible shapes); parameters that must be
/// constant (axes, strides, pad types) are read when the step is made. The table gathers the
/// families defined beside this file (`MILOperations+Activation.swift`, `+Normalization`, …).
enum MILOperations {
    typealias Arguments = [String: [ProgramPlan.Argument]]
    typealias Make = @Sendable (Arguments, [Int], OperationContext) throws -> ProgramPlan.Step

    static let table: [String: Make] = {
        var table: [String: Make] = [
            "exp": function(.exp), "sqrt": function(.sqrt), "abs": function(.abs), "square": function(.square),
            "identity": identity,
            "add": binary(OCM_BINARY_ADD), "sub": binary(OCM_BINARY_SUB), "mul": binary(OCM_BINARY_MUL), "real_div": binary(OCM_BINARY_DIV),
            "maximum": binary(OCM_BINARY_MAX), "minimum": binary(OCM_BINARY_MIN), "pow": binary(OCM_BINARY_POW),
            "floor_div": binary(OCM_BINARY_FLOOR_DIV), "mod": binary(OCM_BINARY_MOD),
            "sin": function(.sin), "cos": function(.cos), "tan": function(.tan), "asin": function(.asin), "acos": function(.acos),
            "atan": function(.atan), "sinh": function(.sinh), "cosh": function(.cosh), "atanh": function(.atanh),
            "erf": function(.erf), "exp2": function(.exp2), "floor": function(.floor), "ceil": function(.ceil), "round": function(.round),
            "sign": function(.sign),
        ]
        table["softmax"] = softmax
        table["linear"] = linear
        table["matmul"] = matmul
        table["reshape"] = reshape
        table["transpose"] = transpose
        table["expand_dims"] = expandDims
        table["squeeze"] = squeeze
        table["concat"] = concat
        table["stack"] = stack
        table["cast"] = cast
        table["conv"] = convolution
        table["conv_transpose"] = convolutionTranspose
        table["conv_quantized"] = quantizedConvolution
        table["crop"] = crop
        table["einsum"] = einsum
        table["classify"] = classify
        table["max_pool"] = pooling(.max)
        table["avg_pool"] = pooling(.average(excludePadding: false))
        table["l2_pool"] = pooling(.l2)
        let families = [
            activations, comparisons, normalizations, reductions, indexing, resizing, creation, scattering, sorting,
            recurrent, attention, states, layout, quantization, random, lists, imageSampling, detection, custom,
        ]
        for family in families {
            table.merge(family) { _, _ in preconditionFailure("an operation type is defined twice") }
        }
        return table
    }()

    /// The operation types that may have more than one output (the others have exactly one).
    static let multipleOutputs: Set<String> = ["split", "topk", "lstm", "gru", "rnn", "non_maximum_suppression", "classify", "custom_layer"]

    /// The operation types that have no outputs (they change a state).
    static let noOutputs: Set<String> = ["write_state"]

    // MARK: Arguments

    static func argument(_ arguments: Arguments, _ name: String, _ context: OperationContext) throws -> ProgramPlan.Argument {
        guard let argument = arguments[name]?.first else { throw context.fail("input '\(name)' is missing") }
        return argument
    }

    static func fetch(_ argument: ProgramPlan.Argument, _ slots: ProgramPlan.Frame) -> MILTensor {
        switch argument {
        // A slot holding a list (or, in a malformed program, nothing) reads as an empty tensor: never a trap.
        case .slot(let slot): return slots[slot] ?? MILTensor(shape: [0], values: [])
        case .constant(let constant): return constant.tensor ?? MILTensor(shape: [0], values: [])
        }
    }

    /// A parameter that must be constant, as integers (nil when absent).
    static func constantInts(_ arguments: Arguments, _ name: String, _ context: OperationContext) throws -> [Int]? {
        guard let argument = arguments[name]?.first else { return nil }
        guard case .constant(.tensor(let tensor)) = argument else { throw context.fail("input '\(name)' must be a constant") }
        return try integers(tensor.values, name, context)
    }

    /// `values` as integers of at most 2³⁰ in magnitude (an error naming the input otherwise).
    static func integers(_ values: [Float], _ name: String, _ context: OperationContext) throws -> [Int] {
        try values.map { value in
            // The range first, in floating point: no integer conversion or magnitude of an extreme value (−2⁶³) can trap.
            guard value.isFinite, value.magnitude <= Float(1 << 30) else {
                throw context.fail("input '\(name)' holds \(value), not a usable integer")
            }
            return Int(value.rounded(.towardZero))
        }
    }

    /// An integer parameter the operation set allows to be computed: constant ones are read when
    /// the step is made, computed ones each time it runs.
    enum IntegerParameter {
        case constant([Int])
        case computed(ProgramPlan.Argument)

        init?(_ arguments: Arguments, _ name: String, _ context: OperationContext) throws {
            guard let argument = arguments[name]?.first else { return nil }
            if case .slot = argument { self = .computed(argument) } else { self = .constant(try constantInts(arguments, name, context)!) }
        }

        func values(_ name: String, _ slots: ProgramPlan.Frame, _ context: OperationContext) throws -> [Int] {
            switch self {
            case .constant(let values): return values
            case .computed(let argument): return try integers(fetch(argument, slots).values, name, context)
            }
        }
    }

    static func constantString(_ arguments: Arguments, _ name: String, _ context: OperationContext) throws -> String? {
        guard let argument = arguments[name]?.first else { return nil }
        guard case .constant(.strings(let strings)) = argument, let first = strings.first else {
            throw context.fail("input '\(name)' must be a constant string")
        }
        return first
    }

    /// A tensor parameter that must be constant (nil when absent).
    static func constantTensor(_ arguments: Arguments, _ name: String, _ context: OperationContext) throws -> MILTensor? {
        guard let argument = arguments[name]?.first else { return nil }
        guard case .constant(.tensor(let tensor)) = argument else { throw context.fail("input '\(name)' must be a constant tensor") }
        return tensor
    }

    static func constantFloat(_ arguments: Arguments, _ name: String, _ context: OperationContext) throws -> Float? {
        guard let argument = arguments[name]?.first else { return nil }
        guard case .constant(.tensor(let tensor)) = argument, let value = tensor.values.first else {
            throw context.fail("input '\(name)' must be a constant number")
        }
        return value
    }

    static func axis(_ axis: Int, rank: Int, _ context: OperationContext) throws -> Int {
        let resolved = axis < 0 ? axis + rank : axis
        guard resolved >= 0 && resolved < rank else { throw context.fail("axis \(axis) is out of range for rank \(rank)") }
        return resolved
    }

    /// Distinct axes resolved against `rank`, in increasing order (`nil` means every axis).
    static func axes(_ axes: [Int]?, rank: Int, _ context: OperationContext) throws -> [Int] {
        guard let axes else { return Array(0..<rank) }
        let resolved = try axes.map { try axis($0, rank: rank, context) }
        guard Set(resolved).count == resolved.count else { throw context.fail("axes \(axes) name an axis twice") }
        return resolved.sorted()
    }

    // MARK: Elementwise

    /// A step writing `body(x, y, count, shape)` into a buffer of the run's pool, `x` the input's
    /// values (nothing runs for an empty tensor).
    static func map(_ body: @escaping @Sendable (UnsafePointer<Float>, UnsafeMutablePointer<Float>, Int, [Int]) -> Void) -> Make {
        { arguments, outputs, context in
            let x = try argument(arguments, "x", context)
            return { slots in
                let input = fetch(x, slots)
                var values = try slots.unfilledBuffer(input.shape, context)
                if !values.isEmpty {
                    input.values.withUnsafeBufferPointer { x in
                        values.withUnsafeMutableBufferPointer { y in body(x.baseAddress!, y.baseAddress!, y.count, input.shape) }
                    }
                }
                slots[outputs[0]] = MILTensor(shape: input.shape, values: values)
            }
        }
    }

    /// A ``UnaryFunction`` by the C kernel.
    static func function(_ function: UnaryFunction) -> Make {
        map { x, y, count, _ in function.forward(x, y, count: count) }
    }

    /// `identity`: the input itself (its storage shared, as `reshape` shares it).
    static let identity: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context)
        return { slots in slots[outputs[0]] = fetch(x, slots) }
    }

    /// `x op y` with NumPy broadcasting (``Broadcast``) by the C kernels, into a buffer of the run's
    /// pool; a fused activation (after `add`, a PReLU with its slopes) is applied to the result in place.
    static func binary(_ op: ocm_binary_op) -> Make {
        { arguments, outputs, context in
            let x = try argument(arguments, "x", context), y = try argument(arguments, "y", context)
            let activation = context.fusedActivation, slopes = context.fusedSlopes ?? []
            return { slots in
                let a = fetch(x, slots), b = fetch(y, slots)
                let broadcast = try broadcasting([a.shape, b.shape], context)
                // A fused PReLU's slopes run along axis 1, as the `prelu` operation's.
                var plane = 0
                if activation == .prelu {
                    let shape = broadcast.shape
                    guard shape.count >= 2, slopes.count == 1 || slopes.count == shape[1] else {
                        throw context.fail("prelu's \(slopes.count) slopes do not fit the sum \(shape) (one per channel of axis 1, or one)")
                    }
                    plane = shape.dropFirst(2).reduce(1, *)
                }
                var values = try slots.unfilledBuffer(broadcast.shape, context)
                if !values.isEmpty {
                    a.values.withUnsafeBufferPointer { ap in
                        b.values.withUnsafeBufferPointer { bp in
                            values.withUnsafeMutableBufferPointer { out in
                                if a.shape == b.shape {
                                    ocm_binary(op, ap.baseAddress!, bp.baseAddress!, out.baseAddress!, out.count)
                                } else {
                                    broadcast.binary(op, ap.baseAddress!, bp.baseAddress!, into: out.baseAddress!)
                                }
                                if activation == .prelu {
                                    ocm_prelu(out.baseAddress!, out.baseAddress!, out.count, slopes, slopes.count, plane)
                                } else {
                                    activation?.apply(out.baseAddress!, count: out.count)
                                }
                            }
                        }
                    }
                }
                slots[outputs[0]] = MILTensor(shape: broadcast.shape, values: values)
            }
        }
    }

    /// How `shapes` broadcast (NumPy's rule), or an error naming them.
    static func broadcasting(_ shapes: [[Int]], _ context: OperationContext) throws -> Broadcast {
        guard let broadcast = Broadcast(shapes) else {
            throw context.fail("shapes \(shapes.map { $0.description }.joined(separator: " and ")) do not broadcast")
        }
        _ = try MILTensor.checkedCount(broadcast.shape, limit: context.limit, context.place)
        return broadcast
    }

    /// The shape `shapes` broadcast to (NumPy's rule), and each one's strides over it (0 along
    /// the dimensions it repeats).
    static func broadcast(_ shapes: [[Int]], _ context: OperationContext) throws -> (shape: [Int], strides: [[Int]]) {
        let broadcast = try broadcasting(shapes, context)
        return (broadcast.shape, broadcast.strides)
    }

    /// `cast`: values are held as float32 whatever the declared type, so a cast to fp32 or fp64
    /// shares its input's storage, a cast to fp16 rounds to the nearest float16 value, one to an
    /// integer type rounds toward zero (a float16 input rounded to float16 first) and one to bool
    /// gives 1 or 0. (In an fp16 program the builder
    /// removes the casts around arithmetic it runs in float32 anyway: ``ProgramPlan/Builder/removableCast(_:kept:at:)``.)
    static let cast: Make = { arguments, outputs, context in
        let dtype = try constantString(arguments, "dtype", context) ?? "fp32"
        switch dtype {
        case "fp32", "fp64": return try identity(arguments, outputs, context)
        case "fp16": return try function(.roundToHalf)(arguments, outputs, context)
        case "int32", "int16", "int8", "uint8", "uint16", "int64":
            // A float16 value is rounded to float16 first, as Core ML holds it: computed here in
            // float32, a value such as 0.99978 (float16's 1.0) would otherwise truncate to 0 (a T5
            // relative-position bucket computed with float16 constants lands on such values).
            guard context.declaredDataType(of: "x") == .float16 else { return try function(.truncate)(arguments, outputs, context) }
            return try map { x, y, count, _ in
                UnaryFunction.roundToHalf.forward(x, y, count: count)
                UnaryFunction.truncate.forward(y, y, count: count)
            }(arguments, outputs, context)
        case "bool": return try function(.boolean)(arguments, outputs, context)
        default: throw context.fail("cast to '\(dtype)' is not supported")
        }
    }

    // MARK: Reductions and shapes

    /// Softmax along `axis` (default the last), by ``Softmax`` into the run's buffer pool.
    static let softmax: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context)
        let axisValue = try constantInts(arguments, "axis", context)?.first ?? -1
        return { slots in
            let input = fetch(x, slots)
            let axis = try axis(axisValue, rank: input.shape.count, context)
            let (blocks, length, inner) = Softmax.view(input.shape, axis: axis)
            var values = try slots.unfilledBuffer(input.shape, context)
            if input.count > 0 { Softmax.forward(input.values, &values, blocks: blocks, length: length, inner: inner) }
            slots[outputs[0]] = MILTensor(shape: input.shape, values: values)
        }
    }

    /// `reshape` to `shape`, a constant or a shape computed while the program runs (from `shape`,
    /// `gather`, `concat`…, in a program converted with flexible inputs). A `0` keeps the input's
    /// size of the dimension it lines up with counting from the last (iOS 17's rule; iOS 15 and 16
    /// allow `0` only where the ranks agree, where both rules pick the same dimension), or 1 past
    /// the input's first dimension; one `-1` takes the size the others leave.
    static let reshape: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context)
        guard let target = try IntegerParameter(arguments, "shape", context) else { throw context.fail("input 'shape' is missing") }
        return { slots in
            let input = fetch(x, slots)
            let requested = try target.values("shape", slots, context)
            slots[outputs[0]] = MILTensor(shape: try reshaped(input.shape, count: input.count, to: requested, context), values: input.values)
        }
    }

    /// The shape `reshape` of a tensor of `shape` (`count` values) to `requested` gives, or an
    /// error naming both.
    static func reshaped(_ shape: [Int], count: Int, to requested: [Int], _ context: OperationContext) throws -> [Int] {
        var result = requested
        let offset = shape.count - requested.count
        for (d, size) in requested.enumerated() where size == 0 {
            result[d] = d + offset >= 0 ? shape[d + offset] : 1
        }
        guard result.filter({ $0 == -1 }).count <= 1, result.allSatisfy({ $0 >= -1 }) else {
            throw context.fail("cannot reshape \(shape) to \(requested)")
        }
        let known = try MILTensor.checkedCount(result.filter { $0 != -1 }, limit: context.limit, context.place)
        if let unknown = result.firstIndex(of: -1) { result[unknown] = known == 0 ? 0 : count / known }
        guard try MILTensor.checkedCount(result, limit: context.limit, context.place) == count else {
            throw context.fail("cannot reshape \(shape) to \(requested)")
        }
        return result
    }

    static let expandDims: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context)
        guard let axes = try constantInts(arguments, "axes", context) else { throw context.fail("expand_dims needs constant axes") }
        return { slots in
            let input = fetch(x, slots)
            var shape = input.shape
            let rank = shape.count + axes.count
            for axis in axes.map({ $0 < 0 ? $0 + rank : $0 }).sorted() {
                guard axis >= 0 && axis <= shape.count else { throw context.fail("axis out of range") }
                shape.insert(1, at: axis)
            }
            slots[outputs[0]] = MILTensor(shape: shape, values: input.values)
        }
    }

    static let squeeze: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context)
        let axes = try constantInts(arguments, "axes", context)
        return { slots in
            let input = fetch(x, slots)
            let rank = input.shape.count
            let doomed = Set(axes.map { $0.map { $0 < 0 ? $0 + rank : $0 } } ?? input.shape.indices.filter { input.shape[$0] == 1 })
            guard doomed.allSatisfy({ $0 >= 0 && $0 < rank && input.shape[$0] == 1 }) else {
                throw context.fail("squeeze of a dimension that is not 1 in \(input.shape)")
            }
            slots[outputs[0]] = MILTensor(shape: input.shape.indices.filter { !doomed.contains($0) }.map { input.shape[$0] }, values: input.values)
        }
    }

    static let transpose: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context)
        guard let perm = try constantInts(arguments, "perm", context) else { throw context.fail("transpose needs a constant perm") }
        return { slots in
            let input = fetch(x, slots)
            let rank = input.shape.count
            let order = perm.map { $0 < 0 ? $0 + rank : $0 }
            guard order.sorted() == Array(0..<rank) else { throw context.fail("perm \(perm) is not a permutation of rank \(rank)") }
            let shape = order.map { input.shape[$0] }
            if rank <= Int(OCM_PERMUTE_MAX_RANK) {
                // The C kernel: contiguous runs copied whole, a moved last axis transposed in tiles.
                var values = try slots.unfilledBuffer(shape, context)
                ocm_permute(input.values, &values, Int32(rank), input.shape.map { Int32($0) }, order.map { Int32($0) })
                slots[outputs[0]] = MILTensor(shape: shape, values: values)
                return
            }
            slots[outputs[0]] = try rearranged(input, Layout.transpose(input.shape, order), &slots, context)
        }
    }

    /// `values` joined along `axis`; with `interleave`, one slice of each value in turn along it (all
    /// of one shape). Rank-0 values (the scalars of a shape computed at run time) count as one value
    /// each along the only axis, as coremltools' type inference has it: scalars alone make a vector
    /// whatever `axis` says, and joined with vectors each is a vector of one.
    static let concat: Make = { arguments, outputs, context in
        guard let parts = arguments["values"], !parts.isEmpty else { throw context.fail("concat needs values") }
        guard let axisValue = try constantInts(arguments, "axis", context)?.first else { throw context.fail("concat needs a constant axis") }
        let interleave = (try constantInts(arguments, "interleave", context)?.first ?? 0) != 0
        return { slots in
            var tensors = parts.map { fetch($0, slots) }
            let scalarsOnly = tensors.allSatisfy { $0.shape.isEmpty }
            if tensors.contains(where: { $0.shape.isEmpty }) && tensors.allSatisfy({ $0.shape.count <= 1 }) {
                tensors = tensors.map { $0.shape.isEmpty ? MILTensor(shape: [1], values: $0.values) : $0 }
            }
            let rank = tensors[0].shape.count
            let axis = scalarsOnly ? 0 : try axis(axisValue, rank: rank, context)
            for tensor in tensors where tensor.shape.count != rank || tensor.shape.indices.contains(where: { $0 != axis && tensor.shape[$0] != tensors[0].shape[$0] }) {
                throw context.fail("shapes \(tensors.map(\.shape)) do not concatenate along axis \(axisValue)")
            }
            if interleave, let different = tensors.first(where: { $0.shape != tensors[0].shape }) {
                throw context.fail("shapes \(tensors[0].shape) and \(different.shape) differ; an interleaving concat needs one shape")
            }
            var shape = tensors[0].shape
            shape[axis] = tensors.reduce(0) { $0 + $1.shape[axis] }
            var values = try slots.unfilledBuffer(shape, context)
            let outer = shape[..<axis].reduce(1, *), inner = shape[(axis + 1)...].reduce(1, *)
            var position = 0
            if interleave {
                let length = tensors[0].shape[axis]
                for o in 0..<outer {
                    for k in 0..<length {
                        let start = (o * length + k) * inner
                        for tensor in tensors {
                            values[position..<(position + inner)] = tensor.values[start..<(start + inner)]
                            position += inner
                        }
                    }
                }
            } else {
                for o in 0..<outer {
                    for tensor in tensors {
                        let run = tensor.shape[axis] * inner
                        values[position..<(position + run)] = tensor.values[(o * run)..<((o + 1) * run)]
                        position += run
                    }
                }
            }
            slots[outputs[0]] = MILTensor(shape: shape, values: values)
        }
    }

    /// `values` (all of one shape) joined along a new dimension `axis`.
    static let stack: Make = { arguments, outputs, context in
        guard let parts = arguments["values"], !parts.isEmpty else { throw context.fail("stack needs values") }
        guard let axisValue = try constantInts(arguments, "axis", context)?.first else { throw context.fail("stack needs a constant axis") }
        return { slots in
            let tensors = parts.map { fetch($0, slots) }
            let shape = tensors[0].shape
            guard tensors.allSatisfy({ $0.shape == shape }) else { throw context.fail("shapes \(tensors.map(\.shape)) differ; stack needs one shape") }
            let axis = try axis(axisValue, rank: shape.count + 1, context)
            let stacked = Array(shape[..<axis]) + [tensors.count] + Array(shape[axis...])
            var values = try slots.unfilledBuffer(stacked, context)
            let outer = shape[..<axis].reduce(1, *), inner = shape[axis...].reduce(1, *)
            var position = 0
            for o in 0..<outer {
                for tensor in tensors {
                    values[position..<(position + inner)] = tensor.values[(o * inner)..<((o + 1) * inner)]
                    position += inner
                }
            }
            slots[outputs[0]] = MILTensor(shape: stacked, values: values)
        }
    }

    // MARK: Products

    static let linear: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context)
        guard case .constant(.tensor(let weight)) = try argument(arguments, "weight", context), weight.shape.count == 2 else {
            throw context.fail("linear needs a constant 2-D weight")
        }
        let bias: MILTensor? = try arguments["bias"].map { _ in
            guard case .constant(.tensor(let b)) = try argument(arguments, "bias", context), b.count == weight.shape[0] else {
                throw context.fail("linear's bias must be a constant of \(weight.shape[0]) values")
            }
            return b
        }
        let (outFeatures, inFeatures) = (weight.shape[0], weight.shape[1])
        guard outFeatures > 0 && inFeatures > 0 else { throw context.fail("linear's weight \(weight.shape) is empty") }
        // The weight is constant: packed once here as the product's right operand, not on every run.
        let packed = PackedWeights(right: weight.values, depth: inFeatures, columns: outFeatures, transposed: true)
        return { slots in
            let input = fetch(x, slots)
            guard input.shape.last == inFeatures else { throw context.fail("input \(input.shape) does not end in \(inFeatures)") }
            let rows = input.count / inFeatures
            try slots.countMultiplyAdds(rows, outFeatures, inFeatures, context: context)
            var values = try slots.unfilledBuffer([rows, outFeatures], context)
            // The bias, one per output feature (column), is added by the product's epilogue.
            withOptionalPointer(bias?.values) { biasValues in
                let epilogue = ocm_gemm_epilogue(row_bias: nil, activation: OCM_EPILOGUE_NONE, lo: 0, hi: 0, col_bias: biasValues, alpha: 0, beta: 0)
                packed.withPacked { packedWeight in
                    if let packedWeight {
                        ocm_sgemm_prepacked_b(packed.isa, packedWeight, false, Int32(rows), Int32(outFeatures), Int32(inFeatures), 1,
                                              input.values, Int32(inFeatures), 0, &values, Int32(outFeatures), epilogue)
                    } else {
                        ocm_sgemm_epilogue(false, true, Int32(rows), Int32(outFeatures), Int32(inFeatures), 1, input.values, Int32(inFeatures),
                                           weight.values, Int32(inFeatures), 0, &values, Int32(outFeatures), epilogue)
                    }
                }
            }
            slots[outputs[0]] = MILTensor(shape: Array(input.shape.dropLast()) + [outFeatures], values: values)
        }
    }

    static let matmul: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context), y = try argument(arguments, "y", context)
        let transposeX = (try constantInts(arguments, "transpose_x", context)?.first ?? 0) != 0
        let transposeY = (try constantInts(arguments, "transpose_y", context)?.first ?? 0) != 0
        // A constant y without batch dimensions (a weight) is packed once here; x's rows, all its
        // batches together, then make one product with it on every run.
        var packedY: (packed: PackedWeights, depth: Int, columns: Int)?
        if case .constant(.tensor(let constant)) = y, constant.shape.count >= 2, constant.shape.dropLast(2).allSatisfy({ $0 == 1 }), constant.count > 0 {
            let (rows, columns) = (constant.shape[constant.shape.count - 2], constant.shape[constant.shape.count - 1])
            let (depth, width) = transposeY ? (columns, rows) : (rows, columns)
            packedY = (PackedWeights(right: constant.values, depth: depth, columns: width, transposed: transposeY), depth, width)
        }
        let constantY = packedY
        return { slots in
            let a = fetch(x, slots), b = fetch(y, slots)
            if case let (packed, depth, n)? = constantY, !transposeX, a.shape.count >= 2, a.shape.last == depth, a.count > 0, b.shape.count <= a.shape.count {
                let rows = a.count / depth
                try slots.countMultiplyAdds(rows, n, depth, context: context)
                var values = try slots.unfilledBuffer(Array(a.shape.dropLast()) + [n], context)
                let done = packed.withPacked { packedB -> Bool in
                    guard let packedB else { return false }
                    ocm_sgemm_prepacked_b(packed.isa, packedB, false, Int32(rows), Int32(n), Int32(depth), 1, a.values, Int32(depth),
                                          0, &values, Int32(n), ocm_gemm_epilogue(row_bias: nil, activation: OCM_EPILOGUE_NONE, lo: 0, hi: 0, col_bias: nil, alpha: 0, beta: 0))
                    return true
                }
                if done {
                    slots[outputs[0]] = MILTensor(shape: Array(a.shape.dropLast()) + [n], values: values)
                    return
                }
                slots.recycle(values)
            }
            guard a.shape.count >= 2, b.shape.count >= 2 else { throw context.fail("matmul of rank below 2 is not supported yet") }
            let (ar, ac) = (a.shape[a.shape.count - 2], a.shape[a.shape.count - 1])
            let (br, bc) = (b.shape[b.shape.count - 2], b.shape[b.shape.count - 1])
            let (m, k) = transposeX ? (ac, ar) : (ar, ac)
            let (k2, n) = transposeY ? (bc, br) : (br, bc)
            let batchA = Array(a.shape.dropLast(2)), batchB = Array(b.shape.dropLast(2))
            guard k == k2, batchA == batchB || batchA.reduce(1, *) == 1 || batchB.reduce(1, *) == 1 else {
                throw context.fail("shapes \(a.shape) and \(b.shape) do not multiply")
            }
            guard m > 0 && n > 0 && k > 0 else { throw context.fail("shapes \(a.shape) and \(b.shape) are empty") }
            let batchShape = batchA.reduce(1, *) >= batchB.reduce(1, *) ? batchA : batchB
            let batch = batchShape.reduce(1, *)
            try slots.countMultiplyAdds(batch, m, n, k, context: context)
            var values = try slots.unfilledBuffer(batchShape + [m, n], context)  // beta = 0: not read
            // One product per batch (a broadcast operand repeated by a stride of 0), small ones side by side.
            let strideA = batchA.reduce(1, *) == 1 ? 0 : ar * ac, strideB = batchB.reduce(1, *) == 1 ? 0 : br * bc
            ocm_sgemm_batched(Int32(batch), transposeX, transposeY, Int32(m), Int32(n), Int32(k), 1, a.values, strideA, Int32(ac),
                              b.values, strideB, Int32(bc), 0, &values, m * n, Int32(n))
            slots[outputs[0]] = MILTensor(shape: batchShape + [m, n], values: values)
        }
    }
}
