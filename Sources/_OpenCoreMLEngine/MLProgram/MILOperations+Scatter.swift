/// The scatters `scatter`, `scatter_along_axis` and `scatter_nd`, sharing their modes and checks.
/// `scatter` gives a copy of `data` whose slices along `axis` at `indices` are combined with the
/// matching slices of `updates` by `mode` (`update`, `add` — the default —, `sub`, `mul`, `div`,
/// `max`, `min`). `updates` has `data`'s shape with `indices.count` along `axis`. An index out of
/// range is an error naming the operation, never a write past the end (iOS 17's `validate_indices`
/// is always in effect); a negative index counts from the end in the iOS 15 versions, and is out of
/// range in iOS 17's, told apart by their `validate_indices` parameter.
extension MILOperations {
    static let scattering: [String: Make] = ["scatter": scatter, "scatter_along_axis": scatterAlongAxis, "scatter_nd": scatterND]

    static let scatterModes: [String: @Sendable (Float, Float) -> Float] = [
        "update": { $1 }, "add": { $0 + $1 }, "sub": { $0 - $1 }, "mul": { $0 * $1 }, "div": { $0 / $1 },
        "max": { max($0, $1) }, "min": { min($0, $1) },
    ]

    static let scatter: Make = { arguments, outputs, context in
        let operands = try ScatterArguments(arguments, context)
        let axisValue = try constantInts(arguments, "axis", context)?.first ?? 0
        return { slots in
            let (input, chosen, source) = operands.tensors(slots)
            let axis = try axis(axisValue, rank: input.shape.count, context)
            guard chosen.shape.count <= 1 else { throw context.fail("indices \(chosen.shape) must be one-dimensional") }
            var expected = input.shape
            expected[axis] = chosen.count
            guard source.shape == expected else {
                throw context.fail("updates \(source.shape) must be \(expected) for data \(input.shape), \(chosen.count) indices and axis \(axisValue)")
            }
            let n = input.shape[axis], outer = input.shape[..<axis].reduce(1, *), inner = input.shape[(axis + 1)...].reduce(1, *)
            let rows = try chosen.values.map { try operands.index($0, n, context) }
            var values = input.values
            for o in 0..<outer {
                for (i, row) in rows.enumerated() {
                    let target = (o * n + row) * inner, from = (o * rows.count + i) * inner
                    for k in 0..<inner { values[target + k] = operands.combine(values[target + k], source.values[from + k]) }
                }
            }
            slots[outputs[0]] = MILTensor(shape: input.shape, values: values)
        }
    }

    /// What every scatter reads: `data`, `indices`, `updates`, the combination `mode` names
    /// (default `add`) and how an index is read.
    struct ScatterArguments {
        let data: ProgramPlan.Argument, indices: ProgramPlan.Argument, updates: ProgramPlan.Argument
        let combine: @Sendable (Float, Float) -> Float
        /// Whether a negative index counts from the end (iOS 15) or is out of range (iOS 17's
        /// versions, told apart by their `validate_indices` parameter).
        let negatives: Bool

        init(_ arguments: Arguments, _ context: OperationContext) throws {
            data = try argument(arguments, "data", context)
            indices = try argument(arguments, "indices", context)
            updates = try argument(arguments, "updates", context)
            let mode = try constantString(arguments, "mode", context) ?? "add"
            guard let combine = scatterModes[mode] else {
                throw context.fail("scatter mode '\(mode)' is not one of \(scatterModes.keys.sorted().joined(separator: ", "))")
            }
            self.combine = combine
            negatives = arguments["validate_indices"] == nil
        }

        func tensors(_ slots: ProgramPlan.Frame) -> (data: MILTensor, indices: MILTensor, updates: MILTensor) {
            (fetch(data, slots), fetch(indices, slots), fetch(updates, slots))
        }

        /// An index into a dimension of `n`, checked.
        func index(_ value: Float, _ n: Int, _ context: OperationContext) throws -> Int {
            guard negatives || !(value < 0) else {
                throw context.fail("index \(value) is negative, out of range for the iOS 17 version of the operation")
            }
            return try checkedIndex(value, n, context)
        }
    }

    /// NumPy's `put_along_axis` with a mode: `updates[…, i, …]` combined into
    /// `data[…, indices[…, i, …], …]` along `axis`; `indices` and `updates` have one shape, which
    /// matches `data`'s everywhere but `axis`.
    static let scatterAlongAxis: Make = { arguments, outputs, context in
        let operands = try ScatterArguments(arguments, context)
        let axisValue = try constantInts(arguments, "axis", context)?.first ?? 0
        return { slots in
            let (input, chosen, source) = operands.tensors(slots)
            let rank = input.shape.count
            let axis = try axis(axisValue, rank: rank, context)
            guard chosen.shape == source.shape, chosen.shape.count == rank,
                  (0..<rank).allSatisfy({ $0 == axis || chosen.shape[$0] == input.shape[$0] }) else {
                throw context.fail("indices \(chosen.shape) and updates \(source.shape) must have one shape, data \(input.shape)'s but along axis \(axisValue)")
            }
            let strides = Broadcast.strides(input.shape)
            var values = input.values
            var index = [Int](repeating: 0, count: rank)
            for position in 0..<chosen.count {
                var target = try operands.index(chosen.values[position], input.shape[axis], context) * strides[axis]
                for d in 0..<rank where d != axis { target += index[d] * strides[d] }
                values[target] = operands.combine(values[target], source.values[position])
                Broadcast.advance(&index, within: chosen.shape)
            }
            slots[outputs[0]] = MILTensor(shape: input.shape, values: values)
        }
    }

    /// TensorFlow's `scatter_nd` with a mode: each index tuple along `indices`'s last dimension
    /// names a slice of `data`, combined with the matching slice of `updates`
    /// (`indices.shape[..<-1] + data.shape[indices.shape[-1]...]`).
    static let scatterND: Make = { arguments, outputs, context in
        let operands = try ScatterArguments(arguments, context)
        return { slots in
            let (input, chosen, source) = operands.tensors(slots)
            guard let depth = chosen.shape.last, depth <= input.shape.count,
                  source.shape == Array(chosen.shape.dropLast()) + Array(input.shape[depth...]) else {
                throw context.fail("indices \(chosen.shape) and updates \(source.shape) do not scatter into data \(input.shape)")
            }
            let strides = Broadcast.strides(input.shape)
            let block = input.shape[depth...].reduce(1, *), tuples = chosen.shape.dropLast().reduce(1, *)
            var values = input.values
            for t in 0..<tuples {
                var target = 0
                for k in 0..<depth { target += try operands.index(chosen.values[t * depth + k], input.shape[k], context) * strides[k] }
                let from = t * block
                for j in 0..<block { values[target + j] = operands.combine(values[target + j], source.values[from + j]) }
            }
            slots[outputs[0]] = MILTensor(shape: input.shape, values: values)
        }
    }
}
