/// Reductions over constant `axes` (default: every axis), keeping the reduced dimensions as size 1
/// when `keep_dims` is true: `reduce_sum`, `reduce_mean`, `reduce_max`, `reduce_min`. The
/// arithmetic is ``Reduction``'s; each step writes into the run's buffer pool.
extension MILOperations {
    static let reductions: [String: Make] = [
        "reduce_sum": reduction(.sum), "reduce_mean": reduction(.mean), "reduce_max": reduction(.max), "reduce_min": reduction(.min),
    ]

    static func reduction(_ kind: Reduction.Kind) -> Make {
        { arguments, outputs, context in
            let x = try argument(arguments, "x", context)
            let axesValue = try constantInts(arguments, "axes", context)
            let keepDims = (try constantInts(arguments, "keep_dims", context)?.first ?? 0) != 0
            return { slots in
                let input = fetch(x, slots)
                let axes = try axes(axesValue, rank: input.shape.count, context)
                var kept = input.shape
                for axis in axes { kept[axis] = 1 }
                var values = try slots.unfilledBuffer(kept, context)
                input.values.withUnsafeBufferPointer { x in
                    values.withUnsafeMutableBufferPointer { y in Reduction.reduce(kind, x, shape: input.shape, axes: axes, into: y) }
                }
                let shape = keepDims ? kept : input.shape.indices.filter { !axes.contains($0) }.map { input.shape[$0] }
                slots[outputs[0]] = MILTensor(shape: shape, values: values)
            }
        }
    }
}
