/// Operations that only rearrange values: `pixel_shuffle`, `pixel_unshuffle`, `depth_to_space`,
/// `space_to_depth`, `space_to_batch`, `batch_to_space`, `reverse`, `reverse_sequence`,
/// `sliding_windows`, and the reshapes `flatten2d` and `reshape_like`. The strided ones are
/// adapters onto ``Layout`` (one copy through a ``StridedView``).
extension MILOperations {
    static let layout: [String: Make] = [
        "pixel_shuffle": blockRearrangement("upscale_factor") { shape, b throws(LayoutError) in try Layout.depthToSpace(shape, block: b, channelsFirst: true) },
        "pixel_unshuffle": blockRearrangement("downscale_factor") { shape, b throws(LayoutError) in try Layout.spaceToDepth(shape, block: b, channelsFirst: true) },
        "depth_to_space": blockRearrangement("block_size") { shape, b throws(LayoutError) in try Layout.depthToSpace(shape, block: b, channelsFirst: false) },
        "space_to_depth": blockRearrangement("block_size") { shape, b throws(LayoutError) in try Layout.spaceToDepth(shape, block: b, channelsFirst: false) },
        "space_to_batch": spaceToBatch, "batch_to_space": batchToSpace,
        "reverse": reverse, "reverse_sequence": reverseSequence, "sliding_windows": slidingWindows,
        "flatten2d": flatten2d, "reshape_like": reshapeLike,
    ]

    /// `input` read through `rearrangement` into a buffer of the run's pool.
    static func rearranged(_ input: MILTensor, _ rearrangement: Layout.Rearrangement, _ slots: inout ProgramPlan.Frame,
                           _ context: OperationContext) throws -> MILTensor {
        let view = rearrangement.view
        guard view.count == rearrangement.shape.reduce(1, *), view.fits(within: input.count) else {
            throw context.fail("a view \(view.shape) does not fit input \(input.shape)")
        }
        var values = try slots.unfilledBuffer(rearrangement.shape, context)
        input.values.withUnsafeBufferPointer { x in
            values.withUnsafeMutableBufferPointer { y in
                guard let x = x.baseAddress, let y = y.baseAddress else { return }
                Layout.gather(x, view, into: y)
            }
        }
        return MILTensor(shape: rearrangement.shape, values: values)
    }

    /// A rearrangement of `x` by a constant block size `parameter` (1 or more).
    static func blockRearrangement(_ parameter: String,
                                   _ make: @escaping @Sendable ([Int], Int) throws(LayoutError) -> Layout.Rearrangement) -> Make {
        { arguments, outputs, context in
            let x = try argument(arguments, "x", context)
            guard let block = try constantInts(arguments, parameter, context)?.first, block >= 1 else {
                throw context.fail("\(parameter) must be a constant of 1 or more")
            }
            return { slots in
                let input = fetch(x, slots)
                let rearrangement: Layout.Rearrangement
                do throws(LayoutError) { rearrangement = try make(input.shape, block) } catch { throw context.fail(error.message) }
                slots[outputs[0]] = try rearranged(input, rearrangement, &slots, context)
            }
        }
    }

    /// A constant `block_shape` of two sizes of 1 or more and a constant `[2, 2]` amount per side.
    static func blockAndMargins(_ arguments: Arguments, _ margins: String, _ context: OperationContext) throws -> (block: [Int], margins: [Int]) {
        guard let block = try constantInts(arguments, "block_shape", context), block.count == 2, block.allSatisfy({ $0 >= 1 }) else {
            throw context.fail("block_shape must be a constant of two sizes of 1 or more")
        }
        guard let amounts = try constantInts(arguments, margins, context), amounts.count == 4, amounts.allSatisfy({ $0 >= 0 }) else {
            throw context.fail("\(margins) must be a constant [2, 2] of counts of 0 or more")
        }
        return (block, amounts)
    }

    /// `x` padded with zeros by `paddings` in H and W, then split into blocks moved to the batch.
    static let spaceToBatch: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context)
        let (block, paddings) = try blockAndMargins(arguments, "paddings", context)
        return { slots in
            let input = fetch(x, slots)
            guard input.shape.count == 4 else { throw context.fail("space_to_batch needs an input of rank 4, not \(input.shape)") }
            let padded = paddings.contains(where: { $0 > 0 })
            let source = padded ? try padding(input, .constant(0), before: [0, 0, paddings[0], paddings[2]],
                                              after: [0, 0, paddings[1], paddings[3]], &slots, context) : input
            let rearrangement: Layout.Rearrangement
            do throws(LayoutError) { rearrangement = try Layout.spaceToBatch(source.shape, block: block) } catch { throw context.fail(error.message) }
            slots[outputs[0]] = try rearranged(source, rearrangement, &slots, context)
            if padded { slots.recycle(source.values) }
        }
    }

    /// Batch blocks moved into H and W, then `crops` taken off each side.
    static let batchToSpace: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context)
        let (block, crops) = try blockAndMargins(arguments, "crops", context)
        return { slots in
            let input = fetch(x, slots)
            let rearrangement: Layout.Rearrangement
            do throws(LayoutError) { rearrangement = try Layout.batchToSpace(input.shape, block: block) } catch { throw context.fail(error.message) }
            let full = rearrangement.shape
            guard crops[0] + crops[1] <= full[2], crops[2] + crops[3] <= full[3] else {
                throw context.fail("crops \(crops) take more than the \(full[2])×\(full[3]) result of batch_to_space")
            }
            guard crops.contains(where: { $0 > 0 }) else {
                slots[outputs[0]] = try rearranged(input, rearrangement, &slots, context)
                return
            }
            let whole = try rearranged(input, rearrangement, &slots, context)
            let shape = [full[0], full[1], full[2] - crops[0] - crops[1], full[3] - crops[2] - crops[3]]
            let strides = Broadcast.strides(full)
            let window = StridedView(shape: shape, strides: strides, offset: crops[0] * strides[2] + crops[2])
            slots[outputs[0]] = try rearranged(whole, Layout.Rearrangement(shape: shape, view: window), &slots, context)
            slots.recycle(whole.values)
        }
    }

    /// `x` backwards along `axes` (default: every axis).
    static let reverse: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context)
        let axesValue = try constantInts(arguments, "axes", context)
        return { slots in
            let input = fetch(x, slots)
            let axes = try axes(axesValue, rank: input.shape.count, context)
            slots[outputs[0]] = try rearranged(input, Layout.reverse(input.shape, axes: axes), &slots, context)
        }
    }

    /// For each index `b` along `batch_axis`, the first `lengths[b]` values along `seq_axis`
    /// reversed, the rest as they are.
    static let reverseSequence: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context), lengthsArgument = try argument(arguments, "lengths", context)
        let axisValues = try ["seq_axis", "batch_axis"].map { try constantInts(arguments, $0, context)?.first ?? 0 }
        return { slots in
            let input = fetch(x, slots), lengthsTensor = fetch(lengthsArgument, slots)
            let seqAxis = try axis(axisValues[0], rank: input.shape.count, context), batchAxis = try axis(axisValues[1], rank: input.shape.count, context)
            guard seqAxis != batchAxis else { throw context.fail("seq_axis and batch_axis are both \(seqAxis)") }
            let n = input.shape[seqAxis]
            let lengths = try integers(lengthsTensor.values, "lengths", context)
            guard lengths.count == input.shape[batchAxis], lengths.allSatisfy({ $0 >= 0 && $0 <= n }) else {
                throw context.fail("lengths \(lengths) must hold \(input.shape[batchAxis]) lengths in 0...\(n)")
            }
            let strides = Broadcast.strides(input.shape)
            var values = input.values
            // A view per batch index reverses its prefix in place of the copy.
            var view = StridedView(input.shape)
            for (b, length) in lengths.enumerated() where length > 1 {
                view.shape = input.shape
                view.shape[batchAxis] = 1
                view.shape[seqAxis] = length
                view.strides = strides
                view.strides[seqAxis] = -strides[seqAxis]
                view.offset = b * strides[batchAxis] + (length - 1) * strides[seqAxis]
                var target = view
                target.strides[seqAxis] = strides[seqAxis]
                target.offset = b * strides[batchAxis]
                var reversed = [Float](repeating: 0, count: view.count)
                input.values.withUnsafeBufferPointer { x in
                    reversed.withUnsafeMutableBufferPointer { r in
                        guard let x = x.baseAddress, let r = r.baseAddress else { return }
                        Layout.gather(x, view, into: r)
                    }
                }
                values.withUnsafeMutableBufferPointer { y in
                    reversed.withUnsafeBufferPointer { r in
                        guard let y = y.baseAddress, let r = r.baseAddress else { return }
                        Layout.scatter(r, into: y, target)
                    }
                }
            }
            slots[outputs[0]] = MILTensor(shape: input.shape, values: values)
        }
    }

    /// Every window of `size` values `stride` apart along `axis`.
    static let slidingWindows: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context)
        guard let axisValue = try constantInts(arguments, "axis", context)?.first, let size = try constantInts(arguments, "size", context)?.first else {
            throw context.fail("sliding_windows needs a constant axis and size")
        }
        let step = try constantInts(arguments, "stride", context)?.first ?? 1
        return { slots in
            let input = fetch(x, slots)
            let axis = try axis(axisValue, rank: input.shape.count, context)
            let rearrangement: Layout.Rearrangement
            do throws(LayoutError) {
                rearrangement = try Layout.slidingWindows(input.shape, axis: axis, size: size, stride: step)
            } catch { throw context.fail(error.message) }
            slots[outputs[0]] = try rearranged(input, rearrangement, &slots, context)
        }
    }

    /// `x` as a matrix: the dimensions before `axis` (default 1, `-rank...rank`) multiplied, then
    /// those from it (the storage shared).
    static let flatten2d: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context)
        let axisValue = try constantInts(arguments, "axis", context)?.first ?? 1
        return { slots in
            let input = fetch(x, slots)
            let rank = input.shape.count
            let axis = axisValue < 0 ? axisValue + rank : axisValue
            guard axis >= 0 && axis <= rank else { throw context.fail("axis \(axisValue) is out of range for rank \(rank)") }
            slots[outputs[0]] = MILTensor(shape: [input.shape[..<axis].reduce(1, *), input.shape[axis...].reduce(1, *)], values: input.values)
        }
    }

    /// `x` reshaped to the concatenation of `ref_tensors[i].shape[begins[i]..<ends[i]]` (to the
    /// end where `end_masks[i]`), the storage shared.
    static let reshapeLike: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context)
        let references = arguments["ref_tensors"] ?? []
        func constants(_ name: String) throws -> [Int] {
            try (arguments[name] ?? []).map { argument in
                guard case .constant(.tensor(let tensor)) = argument, tensor.count == 1 else {
                    throw context.fail("\(name) must be a tuple of constant scalars")
                }
                return try integers(tensor.values, name, context)[0]
            }
        }
        let begins = try constants("begins"), ends = try constants("ends"), endMasks = try constants("end_masks")
        guard !references.isEmpty, begins.count == references.count, ends.count == references.count, endMasks.count == references.count else {
            throw context.fail("ref_tensors, begins, ends and end_masks must hold as many values, at least one")
        }
        return { slots in
            let input = fetch(x, slots)
            var shape: [Int] = []
            for (i, reference) in references.enumerated() {
                let dims = fetch(reference, slots).shape, rank = dims.count
                let begin = begins[i] < 0 ? begins[i] + rank : begins[i]
                let end = endMasks[i] != 0 ? rank : (ends[i] < 0 ? ends[i] + rank : ends[i])
                guard begin >= 0, end <= rank, begin <= end else {
                    throw context.fail("begins[\(i)] \(begins[i]) and ends[\(i)] \(ends[i]) do not select from the shape \(dims) of ref_tensors[\(i)]")
                }
                shape += dims[begin..<end]
            }
            guard try MILTensor.checkedCount(shape, limit: context.limit, context.place) == input.count else {
                throw context.fail("cannot reshape \(input.shape) to \(shape)")
            }
            slots[outputs[0]] = MILTensor(shape: shape, values: input.values)
        }
    }
}
