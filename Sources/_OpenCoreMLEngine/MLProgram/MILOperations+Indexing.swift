/// Operations that pick, repeat or surround values: `split`, `slice_by_index`, `slice_update`,
/// `slice_by_size`, `gather`, `gather_along_axis`, `gather_nd`, `one_hot`, `non_zero`, `tile` and `pad`. Every index read from a tensor is checked
/// against the dimension it indexes: out of range is an error naming the operation, never a read
/// past the end.
extension MILOperations {
    static let indexing: [String: Make] = [
        "split": split, "slice_by_index": sliceByIndex, "slice_by_size": sliceBySize,
        "gather": gather, "gather_along_axis": gatherAlongAxis, "tile": tile, "pad": pad,
        "slice_update": sliceUpdate, "gather_nd": gatherND, "one_hot": oneHot, "non_zero": nonZero,
    ]

    /// A tensor of `shape` whose value at each row-major index is `input`'s at `source(index)`.
    static func remap(_ input: MILTensor, to shape: [Int], _ slots: inout ProgramPlan.Frame, _ context: OperationContext,
                      source: ([Int]) throws -> Int) throws -> MILTensor {
        var values = try slots.unfilledBuffer(shape, context)
        var index = [Int](repeating: 0, count: shape.count)
        for position in values.indices {
            values[position] = input.values[try source(index)]
            Broadcast.advance(&index, within: shape)
        }
        return MILTensor(shape: shape, values: values)
    }

    /// `x` cut along a constant `axis` into `num_splits` equal parts or parts of `split_sizes`,
    /// one per output.
    static let split: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context)
        guard let axisValue = try constantInts(arguments, "axis", context)?.first else { throw context.fail("split needs a constant axis") }
        let sizes = try constantInts(arguments, "split_sizes", context)
        let parts = try constantInts(arguments, "num_splits", context)?.first
        guard sizes != nil || parts != nil else { throw context.fail("split needs num_splits or split_sizes") }
        if let sizes, sizes.contains(where: { $0 < 0 }) { throw context.fail("split_sizes \(sizes) holds a negative size") }
        let count = sizes?.count ?? parts!
        guard count >= 1, count == outputs.count, parts == nil || parts == count else {
            throw context.fail("split into \(count) parts (num_splits \(parts.map(String.init) ?? "absent"), split_sizes \(sizes?.description ?? "absent")) for \(outputs.count) outputs")
        }
        return { slots in
            let input = fetch(x, slots)
            let axis = try axis(axisValue, rank: input.shape.count, context)
            let length = input.shape[axis]
            let lengths: [Int]
            if let sizes {
                guard sizes.reduce(0, +) == length else { throw context.fail("split_sizes \(sizes) do not add up to \(length) on axis \(axisValue)") }
                lengths = sizes
            } else {
                guard length % count == 0 else { throw context.fail("\(length) does not split into \(count) equal parts on axis \(axisValue)") }
                lengths = Array(repeating: length / count, count: count)
            }
            let outer = input.shape[..<axis].reduce(1, *), inner = input.shape[(axis + 1)...].reduce(1, *)
            var start = 0
            for (output, part) in zip(outputs, lengths) {
                var shape = input.shape
                shape[axis] = part
                var values = try slots.unfilledBuffer(shape, context)
                let run = part * inner
                if run > 0 {
                    input.values.withUnsafeBufferPointer { source in
                        values.withUnsafeMutableBufferPointer { target in
                            for o in 0..<outer { (target.baseAddress! + o * run).update(from: source.baseAddress! + (o * length + start) * inner, count: run) }
                        }
                    }
                }
                slots[output] = MILTensor(shape: shape, values: values)
                start += part
            }
        }
    }

    /// NumPy's `x[begin:end:stride, …]` per dimension: masks replace a begin or end with the
    /// dimension's edge (which edge follows the stride's sign), `squeeze_mask` takes the single
    /// index `begin` and drops the dimension. A copy through a ``StridedView``.
    static let sliceByIndex: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context)
        let slice = try SliceParameters(arguments, context)
        return { slots in
            let input = fetch(x, slots)
            let (view, shape) = try slice.window(input.shape, slots, context)
            var result = try rearranged(input, Layout.Rearrangement(shape: view.shape, view: view), &slots, context)
            result.shape = shape
            slots[outputs[0]] = result
        }
    }

    /// `x` with the slice `slice_by_index` would take (the same parameters) replaced by `update`,
    /// of the slice's shape with or without its squeezed dimensions.
    static let sliceUpdate: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context), update = try argument(arguments, "update", context)
        let slice = try SliceParameters(arguments, context)
        return { slots in
            let input = fetch(x, slots), source = fetch(update, slots)
            let (view, shape) = try slice.window(input.shape, slots, context)
            guard source.shape == shape || source.shape == view.shape, view.fits(within: input.count) else {
                throw context.fail("update \(source.shape) must be \(shape), the shape of the slice of \(input.shape)")
            }
            var values = try slots.unfilledBuffer(input.shape, context)
            input.values.withUnsafeBufferPointer { x in
                values.withUnsafeMutableBufferPointer { out in
                    guard let x = x.baseAddress, let y = out.baseAddress else { return }
                    y.update(from: x, count: out.count)
                    source.values.withUnsafeBufferPointer { u in
                        guard let u = u.baseAddress else { return }
                        Layout.scatter(u, into: y, view)
                    }
                }
            }
            slots[outputs[0]] = MILTensor(shape: input.shape, values: values)
        }
    }

    /// `slice_by_index`'s and `slice_update`'s parameters: `begin` and `end` (constant or computed),
    /// constant `stride` and masks.
    struct SliceParameters {
        let begin: IntegerParameter, end: IntegerParameter
        let stride: [Int]?, beginMask: [Int]?, endMask: [Int]?, squeezeMask: [Int]?

        init(_ arguments: Arguments, _ context: OperationContext) throws {
            guard let begin = try IntegerParameter(arguments, "begin", context), let end = try IntegerParameter(arguments, "end", context) else {
                throw context.fail("\(context.operation.type) needs begin and end")
            }
            (self.begin, self.end) = (begin, end)
            stride = try constantInts(arguments, "stride", context)
            beginMask = try constantInts(arguments, "begin_mask", context)
            endMask = try constantInts(arguments, "end_mask", context)
            squeezeMask = try constantInts(arguments, "squeeze_mask", context)
            if let stride, stride.contains(0) { throw context.fail("stride \(stride) holds a zero") }
        }

        /// The positions of a tensor of `shape` the slice selects, and the slice's shape once its
        /// squeezed dimensions are dropped.
        func window(_ shape: [Int], _ slots: ProgramPlan.Frame, _ context: OperationContext) throws -> (StridedView, [Int]) {
            let rank = shape.count
            let begins = try begin.values("begin", slots, context), ends = try end.values("end", slots, context)
            for (name, list) in [("begin", begins), ("end", ends), ("stride", stride), ("begin_mask", beginMask),
                                 ("end_mask", endMask), ("squeeze_mask", squeezeMask)] where list != nil && list!.count != rank {
                throw context.fail("\(name) holds \(list!.count) values for an input of rank \(rank)")
            }
            var view = StridedView(shape)
            let steps = stride ?? Array(repeating: 1, count: rank)
            for d in 0..<rank {
                let n = shape[d], step = steps[d], inner = view.strides[d]
                if squeezeMask?[d] ?? 0 != 0 {
                    let index = begins[d] < 0 ? begins[d] + n : begins[d]
                    guard index >= 0 && index < n else { throw context.fail("index \(begins[d]) is out of range for dimension \(d) of \(shape)") }
                    view.offset += index * inner
                    view.shape[d] = 1
                    continue
                }
                // Python's slice.indices: clamp to [0, n] going forward, to [-1, n - 1] going back.
                let (low, high) = step > 0 ? (0, n) : (-1, n - 1)
                func resolve(_ value: Int) -> Int { min(max(value < 0 ? value + n : value, low), high) }
                let first = beginMask?[d] ?? 0 != 0 ? (step > 0 ? 0 : n - 1) : resolve(begins[d])
                let last = endMask?[d] ?? 0 != 0 ? (step > 0 ? n : -1) : resolve(ends[d])
                let count = step > 0 ? max(0, (last - first + step - 1) / step) : max(0, (first - last - step - 1) / -step)
                view.shape[d] = count
                view.strides[d] = step * inner
                if count > 0 { view.offset += first * inner }
            }
            let squeezed = squeezeMask.map { mask in view.shape.indices.filter { mask[$0] == 0 }.map { view.shape[$0] } } ?? view.shape
            return (view, squeezed)
        }
    }

    /// `size[d]` values from `begin[d]` in each dimension (`-1`: to the end).
    static let sliceBySize: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context)
        guard let begin = try IntegerParameter(arguments, "begin", context), let size = try IntegerParameter(arguments, "size", context) else {
            throw context.fail("slice_by_size needs begin and size")
        }
        return { slots in
            let input = fetch(x, slots)
            let rank = input.shape.count
            let begins = try begin.values("begin", slots, context), sizes = try size.values("size", slots, context)
            guard begins.count == rank, sizes.count == rank else {
                throw context.fail("begin \(begins) and size \(sizes) do not both hold \(rank) values for input \(input.shape)")
            }
            var starts = begins, shape = sizes
            for d in 0..<rank {
                let n = input.shape[d]
                if starts[d] < 0 { starts[d] += n }
                if shape[d] == -1 { shape[d] = n - starts[d] }
                guard starts[d] >= 0, shape[d] >= 0, starts[d] + shape[d] <= n else {
                    throw context.fail("begin \(begins) and size \(sizes) reach outside input \(input.shape)")
                }
            }
            let inStrides = Broadcast.strides(input.shape)
            slots[outputs[0]] = try remap(input, to: shape, &slots, context) { index in
                var offset = 0
                for d in 0..<rank { offset += (starts[d] + index[d]) * inStrides[d] }
                return offset
            }
        }
    }

    /// An index read from a tensor, negative ones counted from the end: an error unless in `0..<n`.
    static func checkedIndex(_ value: Float, _ n: Int, _ context: OperationContext) throws -> Int {
        guard value.isFinite, let raw = Int(exactly: value.rounded(.towardZero)), raw >= -n && raw < n else {
            throw context.fail("index \(value) is out of range for a dimension of \(n)")
        }
        return raw < 0 ? raw + n : raw
    }

    /// `x`'s slices along `axis` at `indices`: the result's shape is
    /// `x.shape[..<axis] + indices.shape[batch_dims...] + x.shape[(axis + 1)...]`, the first
    /// `batch_dims` dimensions of `x` and `indices` paired instead of crossed.
    static let gather: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context), indices = try argument(arguments, "indices", context)
        let axisValue = try constantInts(arguments, "axis", context)?.first ?? 0
        let batchDims = try constantInts(arguments, "batch_dims", context)?.first ?? 0
        return { slots in
            let input = fetch(x, slots), chosen = fetch(indices, slots)
            let axis = try axis(axisValue, rank: input.shape.count, context)
            guard batchDims >= 0, batchDims <= axis, batchDims <= chosen.shape.count,
                  Array(input.shape[..<batchDims]) == Array(chosen.shape[..<batchDims]) else {
                throw context.fail("batch_dims \(batchDims) does not fit x \(input.shape), indices \(chosen.shape) and axis \(axisValue)")
            }
            let batches = input.shape[..<batchDims].reduce(1, *), before = input.shape[batchDims..<axis].reduce(1, *)
            let n = input.shape[axis], after = input.shape[(axis + 1)...].reduce(1, *)
            let picks = chosen.shape[batchDims...].reduce(1, *)
            let shape = Array(input.shape[..<axis]) + Array(chosen.shape[batchDims...]) + Array(input.shape[(axis + 1)...])
            var values = try slots.buffer(shape, context)
            var position = 0
            for b in 0..<batches {
                for p in 0..<before {
                    for k in 0..<picks {
                        let index = try checkedIndex(chosen.values[b * picks + k], n, context)
                        let base = ((b * before + p) * n + index) * after
                        for a in 0..<after { values[position + a] = input.values[base + a] }
                        position += after
                    }
                }
            }
            slots[outputs[0]] = MILTensor(shape: shape, values: values)
        }
    }

    /// `output[…, i, …] = x[…, indices[…, i, …], …]` along `axis`: the result has `indices`'s shape,
    /// which matches `x`'s everywhere but `axis`.
    static let gatherAlongAxis: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context), indices = try argument(arguments, "indices", context)
        let axisValue = try constantInts(arguments, "axis", context)?.first ?? 0
        return { slots in
            let input = fetch(x, slots), chosen = fetch(indices, slots)
            let rank = input.shape.count
            let axis = try axis(axisValue, rank: rank, context)
            guard chosen.shape.count == rank, (0..<rank).allSatisfy({ $0 == axis || chosen.shape[$0] == input.shape[$0] }) else {
                throw context.fail("indices \(chosen.shape) must match x \(input.shape) everywhere but axis \(axisValue)")
            }
            let inStrides = Broadcast.strides(input.shape)
            var position = 0
            slots[outputs[0]] = try remap(input, to: chosen.shape, &slots, context) { index in
                defer { position += 1 }
                var offset = try checkedIndex(chosen.values[position], input.shape[axis], context) * inStrides[axis]
                for d in 0..<rank where d != axis { offset += index[d] * inStrides[d] }
                return offset
            }
        }
    }

    /// `x`'s slices at the index tuples along `indices`'s last dimension (TensorFlow's `gather_nd`):
    /// with `K = indices.shape` and `b = batch_dims` (iOS 16), the result's shape is
    /// `K[..<-1] + x.shape[(b + K[-1])...]`, the first `b` dimensions of `x` and `indices` paired.
    /// Every index is checked (iOS 17's `validate_indices` is always in effect), negative ones
    /// counted from the end.
    static let gatherND: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context), indices = try argument(arguments, "indices", context)
        let batchDims = try constantInts(arguments, "batch_dims", context)?.first ?? 0
        return { slots in
            let input = fetch(x, slots), chosen = fetch(indices, slots)
            guard let depth = chosen.shape.last, batchDims >= 0, batchDims < chosen.shape.count, depth + batchDims <= input.shape.count,
                  Array(input.shape[..<batchDims]) == Array(chosen.shape[..<batchDims]) else {
                throw context.fail("indices \(chosen.shape) with batch_dims \(batchDims) do not index x \(input.shape)")
            }
            let strides = Broadcast.strides(input.shape)
            let batches = input.shape[..<batchDims].reduce(1, *), batchStride = batchDims > 0 ? strides[batchDims - 1] : 0
            let tuples = chosen.shape[batchDims..<(chosen.shape.count - 1)].reduce(1, *)
            let block = input.shape[(batchDims + depth)...].reduce(1, *)
            let shape = Array(chosen.shape.dropLast()) + Array(input.shape[(batchDims + depth)...])
            var values = try slots.unfilledBuffer(shape, context)
            var position = 0
            for b in 0..<batches {
                for t in 0..<tuples {
                    var offset = b * batchStride
                    for k in 0..<depth {
                        let d = batchDims + k
                        offset += try checkedIndex(chosen.values[(b * tuples + t) * depth + k], input.shape[d], context) * strides[d]
                    }
                    values[position..<(position + block)] = input.values[offset..<(offset + block)]
                    position += block
                }
            }
            slots[outputs[0]] = MILTensor(shape: shape, values: values)
        }
    }

    /// One-hot vectors along a new dimension `axis` (default −1, the last) of `one_hot_vector_size`
    /// values: `on_value` (default 1) where the position is the index, `off_value` (default 0)
    /// elsewhere. As TensorFlow's `one_hot`, an index outside `0..<size` (−1 included) gives a
    /// vector of `off_value` only, not an error.
    static let oneHot: Make = { arguments, outputs, context in
        let indices = try argument(arguments, "indices", context)
        guard let size = try IntegerParameter(arguments, "one_hot_vector_size", context) else {
            throw context.fail("one_hot needs one_hot_vector_size")
        }
        let axisValue = try constantInts(arguments, "axis", context)?.first ?? -1
        let on = try constantFloat(arguments, "on_value", context) ?? 1, off = try constantFloat(arguments, "off_value", context) ?? 0
        return { slots in
            let chosen = fetch(indices, slots)
            guard let depth = try size.values("one_hot_vector_size", slots, context).first, depth >= 0 else {
                throw context.fail("one_hot_vector_size must be 0 or more")
            }
            let axis = try axis(axisValue, rank: chosen.shape.count + 1, context)
            let shape = Array(chosen.shape[..<axis]) + [depth] + Array(chosen.shape[axis...])
            let outer = chosen.shape[..<axis].reduce(1, *), inner = chosen.shape[axis...].reduce(1, *)
            var values = try slots.unfilledBuffer(shape, context)
            values.withUnsafeMutableBufferPointer { $0.update(repeating: off) }
            for o in 0..<outer {
                for i in 0..<inner {
                    let value = chosen.values[o * inner + i]
                    guard value.isFinite, value >= 0, value < Float(depth) else { continue }
                    values[(o * depth + Int(value)) * inner + i] = on
                }
            }
            slots[outputs[0]] = MILTensor(shape: shape, values: values)
        }
    }

    /// The indices of `x`'s values that are not zero, in row-major order: `[N, rank]` (N found when
    /// the step runs; `[0, rank]` when every value is zero).
    static let nonZero: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context)
        return { slots in
            let input = fetch(x, slots)
            let rank = input.shape.count
            let found = input.values.reduce(0) { $1 != 0 ? $0 + 1 : $0 }
            var values = try slots.unfilledBuffer([found, rank], context)
            var index = [Int](repeating: 0, count: rank), row = 0
            for value in input.values {
                if value != 0 {
                    for d in 0..<rank { values[row * rank + d] = Float(index[d]) }
                    row += 1
                }
                Broadcast.advance(&index, within: input.shape)
            }
            slots[outputs[0]] = MILTensor(shape: [found, rank], values: values)
        }
    }

    /// `x` repeated `reps[d]` times along each dimension.
    static let tile: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context)
        guard let reps = try IntegerParameter(arguments, "reps", context) else { throw context.fail("tile needs reps") }
        return { slots in
            let input = fetch(x, slots)
            let counts = try reps.values("reps", slots, context)
            guard counts.count == input.shape.count, counts.allSatisfy({ $0 >= 0 }) else {
                throw context.fail("reps \(counts) must hold \(input.shape.count) counts of 0 or more")
            }
            let shape = zip(input.shape, counts).map { $0 * $1 }
            let inStrides = Broadcast.strides(input.shape)
            slots[outputs[0]] = try remap(input, to: shape, &slots, context) { index in
                var offset = 0
                for d in index.indices { offset += (index[d] % input.shape[d]) * inStrides[d] }
                return offset
            }
        }
    }

    /// The last `pad.count / 2` dimensions widened by `pad[2i]` values before and `pad[2i + 1]`
    /// after: `constant_val` (mode `constant`, the default), the mirror image without the edge
    /// (`reflect`) or the edge value repeated (`replicate`); an adapter onto ``Padding``. The
    /// amounts may be given at run time.
    static let pad: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context)
        guard let amountsParameter = try IntegerParameter(arguments, "pad", context) else { throw context.fail("pad needs pad") }
        let mode = try padMode(arguments, context)
        return { slots in
            let input = fetch(x, slots)
            let amounts = try amountsParameter.values("pad", slots, context), rank = input.shape.count
            guard amounts.count % 2 == 0, amounts.count / 2 <= rank, amounts.allSatisfy({ $0 >= 0 }) else {
                throw context.fail("pad \(amounts) must hold two counts of 0 or more for each of at most \(rank) dimensions")
            }
            let unpadded = Array(repeating: 0, count: rank - amounts.count / 2)
            slots[outputs[0]] = try padding(input, mode, before: unpadded + stride(from: 0, to: amounts.count, by: 2).map { amounts[$0] },
                                            after: unpadded + stride(from: 1, to: amounts.count, by: 2).map { amounts[$0] }, &slots, context)
        }
    }

    /// `input` widened by `before[d]` and `after[d]` values along each axis, by ``Padding`` into a
    /// buffer of the run's pool.
    static func padding(_ input: MILTensor, _ mode: Padding.Mode, before: [Int], after: [Int], _ slots: inout ProgramPlan.Frame,
                        _ context: OperationContext) throws -> MILTensor {
        let op: Padding
        do throws(PaddingError) {
            op = try Padding(mode, inputShape: input.shape, before: before, after: after)
        } catch {
            throw context.fail(error.message)
        }
        var values = try slots.unfilledBuffer(op.outputShape, context)
        input.values.withUnsafeBufferPointer { x in
            values.withUnsafeMutableBufferPointer { out in
                guard let y = out.baseAddress else { return }
                if let x = x.baseAddress {
                    op.forward(x, into: y)
                } else if case .constant(let value) = mode {
                    y.update(repeating: value, count: out.count)  // an empty input: only the padding
                }
            }
        }
        return MILTensor(shape: op.outputShape, values: values)
    }

    /// `pad`'s `mode` (`constant`, the default, with `constant_val`; `reflect`; `replicate`).
    static func padMode(_ arguments: Arguments, _ context: OperationContext) throws -> Padding.Mode {
        switch try constantString(arguments, "mode", context) ?? "constant" {
        case "constant": return .constant(try constantFloat(arguments, "constant_val", context) ?? 0)
        case "reflect": return .reflect
        case "replicate": return .replicate
        case let mode: throw context.fail("pad mode '\(mode)' is not constant, reflect or replicate")
        }
    }
}
