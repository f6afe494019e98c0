import CoreMLSpec
import _OpenCoreMLKernels

/// iOS 18's `scaled_dot_product_attention`: `softmax(Q·Kᵀ/√E + mask)·V`, the softmax along the
/// keys, for `query` [B…, L, E], `key` [B…, S, E] and `value` [B…, S, EV] (one rank of 3 or more,
/// one batch shape B…), giving [B…, L, EV]. The optional `attn_mask` broadcasts (NumPy's rule) to
/// the scores' shape [B…, L, S]: a `bool` mask keeps the scores where it is true and makes the
/// others −∞; a float one is added to them. coremltools emits it for PyTorch's
/// `scaled_dot_product_attention` from iOS 18 when no `scale` is given (`is_causal` becomes a
/// constant lower-triangular bool mask).
///
/// Each batch element is two GEMMs (the scores with the 1/√E scale folded in, then the weighted
/// values) around the masking and the softmax kernel, in one scratch matrix of L × S.
///
/// Deliberately unlike the operation's reference definition (coremltools' `value_inference`, whose
/// softmax is NaN over a row that is −∞ throughout): a query whose every score is −∞ after masking
/// (every key masked out, or no keys) attends to nothing, and its output row is zeros, as PyTorch's
/// `scaled_dot_product_attention` gives. Core ML does not document what it does there.
extension MILOperations {
    static let attention: [String: Make] = ["scaled_dot_product_attention": scaledDotProductAttention]

    static let scaledDotProductAttention: Make = { arguments, outputs, context in
        let query = try argument(arguments, "query", context), key = try argument(arguments, "key", context)
        let value = try argument(arguments, "value", context)
        let mask = arguments["attn_mask"]?.first
        // Every tensor is float32 at run time: whether 1 means "keep" or "add 1" is the declared type's to say.
        var keepsWhereTrue = false
        if mask != nil {
            switch context.declaredDataType(of: "attn_mask") {
            case .bool?: keepsWhereTrue = true
            case .float16?, .float32?, .float64?, .bfloat16?: keepsWhereTrue = false
            case let other?: throw context.fail("attn_mask is \(other); it must be bool or a float type")
            case nil: throw context.fail("attn_mask declares no type (a bool mask and a float one differ)")
            }
        }
        return { slots in
            let q = fetch(query, slots), k = fetch(key, slots), v = fetch(value, slots)
            let rank = q.shape.count
            let batchShape = Array(q.shape.dropLast(2))
            guard rank >= 3, k.shape.count == rank, v.shape.count == rank, Array(k.shape.dropLast(2)) == batchShape,
                  Array(v.shape.dropLast(2)) == batchShape, k.shape[rank - 1] == q.shape[rank - 1], v.shape[rank - 2] == k.shape[rank - 2] else {
                throw context.fail("query \(q.shape), key \(k.shape) and value \(v.shape) are not [B…, L, E], [B…, S, E] and [B…, S, EV] of rank 3 or more")
            }
            let (l, e, s, ev) = (q.shape[rank - 2], q.shape[rank - 1], k.shape[rank - 2], v.shape[rank - 1])
            let scoreShape = batchShape + [l, s]
            // The mask's strides over the scores' shape (0 along the dimensions it repeats).
            var maskValues: [Float] = [], maskStrides = [Int](repeating: 0, count: rank)
            if let mask {
                let m = fetch(mask, slots)
                let (shape, strides) = try broadcast([scoreShape, m.shape], context)
                guard shape == scoreShape else { throw context.fail("attn_mask \(m.shape) does not broadcast to the scores' shape \(scoreShape)") }
                (maskValues, maskStrides) = (m.values, strides[1])
            }
            try slots.countMultiplyAdds(batchShape.reduce(1, *), l, s, e + ev, context: context)
            var result = try slots.unfilledBuffer(batchShape + [l, ev], context)
            var scores = try slots.unfilledBuffer([l, s], context)
            var batchIndex = [Int](repeating: 0, count: rank - 2)
            let scale = 1 / Float(e).squareRoot()
            var deadRows: [Int] = []
            for b in 0..<batchShape.reduce(1, *) {
                q.values.withUnsafeBufferPointer { pq in
                    k.values.withUnsafeBufferPointer { pk in
                        ocm_sgemm(false, true, Int32(l), Int32(s), Int32(e), scale, pq.baseAddress?.advanced(by: b * l * e), Int32(max(e, 1)),
                                  pk.baseAddress?.advanced(by: b * s * e), Int32(max(e, 1)), 0, &scores, Int32(max(s, 1)))
                    }
                }
                deadRows.removeAll(keepingCapacity: true)
                if mask != nil {
                    let base = zip(batchIndex, maskStrides).reduce(0) { $0 + $1.0 * $1.1 }
                    let (rowStride, columnStride) = (maskStrides[rank - 2], maskStrides[rank - 1])
                    for row in 0..<l {
                        var largest = -Float.infinity
                        for column in 0..<s {
                            let position = row * s + column
                            if mask != nil {
                                let m = maskValues[base + row * rowStride + column * columnStride]
                                scores[position] = keepsWhereTrue ? (m != 0 ? scores[position] : -.infinity) : scores[position] + m
                            }
                            if !(scores[position] <= largest) { largest = scores[position] }  // a NaN stays the largest, and spreads
                        }
                        if largest == -.infinity { deadRows.append(row) }
                    }
                }
                scores.withUnsafeMutableBufferPointer { p in
                    ocm_softmax_rows(p.baseAddress, p.baseAddress, Int32(l), Int32(s), Int32(max(s, 1)), Int32(max(s, 1)))
                    for row in deadRows { p[(row * s)..<((row + 1) * s)].update(repeating: 0) }
                }
                v.values.withUnsafeBufferPointer { pv in
                    result.withUnsafeMutableBufferPointer { py in
                        ocm_sgemm(false, false, Int32(l), Int32(ev), Int32(s), 1, scores, Int32(max(s, 1)), pv.baseAddress?.advanced(by: b * s * ev),
                                  Int32(max(ev, 1)), 0, py.baseAddress?.advanced(by: b * l * ev), Int32(max(ev, 1)))
                    }
                }
                Broadcast.advance(&batchIndex, within: batchShape)
            }
            slots.recycle(scores)
            slots[outputs[0]] = MILTensor(shape: batchShape + [l, ev], values: result)
        }
    }
}
