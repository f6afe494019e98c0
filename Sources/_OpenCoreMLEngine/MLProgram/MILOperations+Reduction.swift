/// Reductions over constant `axes` (default: every axis), keeping the reduced dimensions as size 1
/// when `keep_dims` is true: `reduce_sum`, `reduce_mean`, `reduce_max`, `reduce_min`.
extension MILOperations {
    static let reductions: [String: Make] = [
        "reduce_sum": reduction(start: 0, combine: +),
        "reduce_mean": reduction(start: 0, combine: +, mean: true),
        "reduce_max": reduction(start: -.infinity) { max($0, $1) },
        "reduce_min": reduction(start: .infinity) { min($0, $1) },
    ]

    /// A reduction folding values into `start` with `combine` (divided by the count for a mean).
    static func reduction(start: Float, combine: @escaping @Sendable (Float, Float) -> Float, mean: Bool = false) -> Make {
        { arguments, outputs, context in
            let x = try argument(arguments, "x", context)
            let axesValue = try constantInts(arguments, "axes", context)
            let keepDims = (try constantInts(arguments, "keep_dims", context)?.first ?? 0) != 0
            return { slots in
                let input = fetch(x, slots)
                let axes = try axes(axesValue, rank: input.shape.count, context)
                var kept = input.shape
                for axis in axes { kept[axis] = 1 }
                let outputStrides = broadcastStrides(kept)
                var values = try slots.buffer(kept, context)
                for i in values.indices { values[i] = start }
                var index = [Int](repeating: 0, count: input.shape.count)
                for value in input.values {
                    var offset = 0
                    for d in index.indices { offset += index[d] * outputStrides[d] }
                    values[offset] = combine(values[offset], value)
                    advance(&index, within: input.shape)
                }
                if mean {
                    let count = Float(axes.map { input.shape[$0] }.reduce(1, *))
                    for i in values.indices { values[i] /= count }
                }
                let shape = keepDims ? kept : input.shape.indices.filter { !axes.contains($0) }.map { input.shape[$0] }
                slots[outputs[0]] = MILTensor(shape: shape, values: values)
            }
        }
    }
}
