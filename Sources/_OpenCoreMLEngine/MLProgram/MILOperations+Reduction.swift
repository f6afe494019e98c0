/// Reductions over constant `axes` (default: every axis), keeping the reduced dimensions as size 1
/// when `keep_dims` is true: `reduce_sum`, `reduce_mean`, `reduce_max`, `reduce_min`,
/// `reduce_prod`, `reduce_l1_norm`, `reduce_l2_norm`, `reduce_sum_square`, `reduce_log_sum`,
/// `reduce_log_sum_exp`; along one `axis`, `reduce_argmax` and `reduce_argmin` (int32 indices,
/// held as floats like every value) and `cumsum`. The arithmetic is ``Reduction``'s; each step
/// writes into the run's buffer pool.
extension MILOperations {
    static let reductions: [String: Make] = [
        "reduce_sum": reduction(.sum), "reduce_mean": reduction(.mean), "reduce_max": reduction(.max), "reduce_min": reduction(.min),
        "reduce_prod": reduction(.prod), "reduce_l1_norm": reduction(.l1Norm), "reduce_l2_norm": reduction(.l2Norm),
        "reduce_sum_square": reduction(.sumSquare), "reduce_log_sum": reduction(.logSum), "reduce_log_sum_exp": reduction(.logSumExp),
        "reduce_argmax": argIndex(largest: true), "reduce_argmin": argIndex(largest: false), "cumsum": cumulativeSum,
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

    /// `reduce_argmax` / `reduce_argmin` along `axis` (default the last); iOS 17's `output_dtype`
    /// (int32 or uint16) changes only the declared type.
    static func argIndex(largest: Bool) -> Make {
        { arguments, outputs, context in
            let x = try argument(arguments, "x", context)
            let axisValue = try constantInts(arguments, "axis", context)?.first ?? -1
            let keepDims = (try constantInts(arguments, "keep_dims", context)?.first ?? 0) != 0
            return { slots in
                let input = fetch(x, slots)
                let axis = try axis(axisValue, rank: input.shape.count, context)
                let (outer, length, inner) = Softmax.view(input.shape, axis: axis)
                var kept = input.shape
                kept[axis] = 1
                var values = try slots.unfilledBuffer(kept, context)
                if !values.isEmpty {
                    guard length > 0 else { throw context.fail("axis \(axisValue) of \(input.shape) is empty: it has no index") }
                    input.values.withUnsafeBufferPointer { x in
                        values.withUnsafeMutableBufferPointer { y in
                            Reduction.argIndex(x.baseAddress!, into: y.baseAddress!, outer: outer, length: length, inner: inner, largest: largest)
                        }
                    }
                }
                var shape = input.shape
                if keepDims { shape[axis] = 1 } else { shape.remove(at: axis) }
                slots[outputs[0]] = MILTensor(shape: shape, values: values)
            }
        }
    }

    /// `cumsum` along `axis` (default 0), `exclusive` and `reverse` constants (default false).
    static let cumulativeSum: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context)
        let axisValue = try constantInts(arguments, "axis", context)?.first ?? 0
        let exclusive = (try constantInts(arguments, "exclusive", context)?.first ?? 0) != 0
        let reverse = (try constantInts(arguments, "reverse", context)?.first ?? 0) != 0
        return { slots in
            let input = fetch(x, slots)
            let axis = try axis(axisValue, rank: input.shape.count, context)
            let (outer, length, inner) = Softmax.view(input.shape, axis: axis)
            var values = try slots.unfilledBuffer(input.shape, context)
            if !values.isEmpty {
                input.values.withUnsafeBufferPointer { x in
                    values.withUnsafeMutableBufferPointer { y in
                        Reduction.cumulativeSum(x.baseAddress!, into: y.baseAddress!, outer: outer, length: length, inner: inner,
                                                exclusive: exclusive, reverse: reverse)
                    }
                }
            }
            slots[outputs[0]] = MILTensor(shape: input.shape, values: values)
        }
    }
}
