/// `scatter`: a copy of `data` whose slices along `axis` at `indices` are combined with the
/// matching slices of `updates` by `mode` (`update`, `add` — the default —, `sub`, `mul`, `div`,
/// `max`, `min`). `updates` has `data`'s shape with `indices.count` along `axis`; an index out of
/// range is an error naming the operation, never a write past the end (iOS 17's `validate_indices`
/// is always in effect).
extension MILOperations {
    static let scattering: [String: Make] = ["scatter": scatter]

    static let scatterModes: [String: @Sendable (Float, Float) -> Float] = [
        "update": { $1 }, "add": { $0 + $1 }, "sub": { $0 - $1 }, "mul": { $0 * $1 }, "div": { $0 / $1 },
        "max": { max($0, $1) }, "min": { min($0, $1) },
    ]

    static let scatter: Make = { arguments, outputs, context in
        let data = try argument(arguments, "data", context), indices = try argument(arguments, "indices", context)
        let updates = try argument(arguments, "updates", context)
        let axisValue = try constantInts(arguments, "axis", context)?.first ?? 0
        let mode = try constantString(arguments, "mode", context) ?? "add"
        guard let combine = scatterModes[mode] else {
            throw context.fail("scatter mode '\(mode)' is not one of \(scatterModes.keys.sorted().joined(separator: ", "))")
        }
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
            let rows = try chosen.values.map { try checkedIndex($0, n, context) }
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
}
