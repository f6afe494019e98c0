/// The scatters: `scatter`, `scatter_along_axis`, `scatter_nd`. `scatter` gives a copy of `data` whose slices along `axis` at `indices` are combined with the
/// matching slices of `updates` by `mode` (`update`, `add` — the default —, `sub`, `mul`, `div`,
/// `max`, `min`). `updates` has `data`'s shape with `indices.count` along `axis`; an index out of
/// range is an error naming the operation, never a write past the end (iOS 17's `validate_indices`
/// is always in effect). A negative index counts from the end in the iOS 15 versions; iOS 17's
/// versions, told apart by their `validate_indices` parameter, count it as out of range. `scatter_along_axis` and `scatter_nd` (below) share its modes and checks.
extension MILOperations {
    static let scattering: [String: Make] = ["scatter": scatter, "scatter_along_axis": scatterAlongAxis, "scatter_nd": scatterND]

    static let scatterModes: [String: @Sendable (Float, Float) -> Float] = [
        "update": { $1 }, "add": { $0 + $1 }, "sub": { $0 - $1 }, "mul": { $0 * $1 }, "div": { $0 / $1 },
        "max": { max($0, $1) }, "min": { min($0, $1) },
    ]

    static let scatter: Make = { arguments, outputs, context in
        let data = try argument(arguments, "data", context), indices = try argument(arguments, "indices", context)
        let updates = try argument(arguments, "updates", context)
        let axisValue = try constantInts(arguments, "axis", context)?.first ?? 0
        let combine = try scatterMode(arguments, context), negatives = arguments["validate_indices"] == nil
        return { slots in
            let input = fetch(data, slots), chosen = fetch(indices, slots), source = fetch(updates, slots)
            let axis = try axis(axisValue, rank: input.shape.count, context)
            guard chosen.shape.count <= 1 else { throw context.fail("indices \(chosen.shape) must be one-dimensional") }
            var expected = input.shape
            expected[axis] = chosen.count
            guard source.shape == expected else {
                throw context.fail("updates \(source.shape) must be \(expected) for data \(input.shape), \(chosen.count) indices and axis \(axisValue)")
            }
            let n = input.shape[axis], outer = input.shape[..<axis].reduce(1, *), inner = input.shape[(axis + 1)...].reduce(1, *)
            let rows = try chosen.values.map { try scatterIndex($0, n, negatives, context) }
            var values = input.values
            for o in 0..<outer {
                for (i, row) in rows.enumerated() {
                    let target = (o * n + row) * inner, from = (o * rows.count + i) * inner
                    for k in 0..<inner { values[target + k] = combine(values[target + k], source.values[from + k]) }
                }
            }
            slots[outputs[0]] = MILTensor(shape: input.shape, values: values)
        }
    }

    /// An index into a dimension of `n`: negative ones counted from the end when `negatives`
    /// (iOS 15), an error otherwise (iOS 17), as is any out of range.
    static func scatterIndex(_ value: Float, _ n: Int, _ negatives: Bool, _ context: OperationContext) throws -> Int {
        guard negatives || !(value < 0) else {
            throw context.fail("index \(value) is negative, out of range for the iOS 17 version of the operation")
        }
        return try checkedIndex(value, n, context)
    }

    /// The combination `mode` names (default `add`).
    static func scatterMode(_ arguments: Arguments, _ context: OperationContext) throws -> @Sendable (Float, Float) -> Float {
        let mode = try constantString(arguments, "mode", context) ?? "add"
        guard let combine = scatterModes[mode] else {
            throw context.fail("scatter mode '\(mode)' is not one of \(scatterModes.keys.sorted().joined(separator: ", "))")
        }
        return combine
    }

    /// NumPy's `put_along_axis` with a mode: `updates[…, i, …]` combined into
    /// `data[…, indices[…, i, …], …]` along `axis`; `indices` and `updates` have one shape, which
    /// matches `data`'s everywhere but `axis`.
    static let scatterAlongAxis: Make = { arguments, outputs, context in
        let data = try argument(arguments, "data", context), indices = try argument(arguments, "indices", context)
        let updates = try argument(arguments, "updates", context)
        let axisValue = try constantInts(arguments, "axis", context)?.first ?? 0
        let combine = try scatterMode(arguments, context), negatives = arguments["validate_indices"] == nil
        return { slots in
            let input = fetch(data, slots), chosen = fetch(indices, slots), source = fetch(updates, slots)
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
                var target = try scatterIndex(chosen.values[position], input.shape[axis], negatives, context) * strides[axis]
                for d in 0..<rank where d != axis { target += index[d] * strides[d] }
                values[target] = combine(values[target], source.values[position])
                Broadcast.advance(&index, within: chosen.shape)
            }
            slots[outputs[0]] = MILTensor(shape: input.shape, values: values)
        }
    }

    /// TensorFlow's `scatter_nd` with a mode: each index tuple along `indices`'s last dimension
    /// names a slice of `data`, combined with the matching slice of `updates`
    /// (`indices.shape[..<-1] + data.shape[indices.shape[-1]...]`).
    static let scatterND: Make = { arguments, outputs, context in
        let data = try argument(arguments, "data", context), indices = try argument(arguments, "indices", context)
        let updates = try argument(arguments, "updates", context)
        let combine = try scatterMode(arguments, context), negatives = arguments["validate_indices"] == nil
        return { slots in
            let input = fetch(data, slots), chosen = fetch(indices, slots), source = fetch(updates, slots)
            guard let depth = chosen.shape.last, depth <= input.shape.count,
                  source.shape == Array(chosen.shape.dropLast()) + Array(input.shape[depth...]) else {
                throw context.fail("indices \(chosen.shape) and updates \(source.shape) do not scatter into data \(input.shape)")
            }
            let strides = Broadcast.strides(input.shape)
            let block = input.shape[depth...].reduce(1, *), tuples = chosen.shape.dropLast().reduce(1, *)
            var values = input.values
            for t in 0..<tuples {
                var target = 0
                for k in 0..<depth { target += try scatterIndex(chosen.values[t * depth + k], input.shape[k], negatives, context) * strides[k] }
                let from = t * block
                for j in 0..<block { values[target + j] = combine(values[target + j], source.values[from + j]) }
            }
            slots[outputs[0]] = MILTensor(shape: input.shape, values: values)
        }
    }
}
