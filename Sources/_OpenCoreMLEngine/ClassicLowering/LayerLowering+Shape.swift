import CoreMLSpec

/// Layers that move, select, repeat or make values without arithmetic: reshapes, slices, splits,
/// tiling, padding, fills, ranges and the classic crop, slice, split and data reorganization.
extension LayerLowering {
    /// A rank-0 value as a one-value vector: a network's blobs have rank 1 or more.
    mutating func atLeastOneDimension(_ x: Value) -> Value {
        x.rank == 0 ? Value(name: reshape(x.name, keeping: 0, then: [1]), rank: 1) : x
    }

    mutating func squeezeLayer(_ p: CoreML_Specification_SqueezeLayerParams, _ x: Value) -> Value {
        if p.squeezeAll || p.axes.isEmpty {
            // Every axis of size 1 goes; how many is known only when the layer runs.
            return Value(name: op("squeeze", ["x": x.name]), rank: LayerLowering.unknownRank)
        }
        let axes = p.axes.map { Int(clamping: $0) }
        return atLeastOneDimension(Value(name: squeeze(x.name, axes), rank: x.rank - axes.count))
    }

    mutating func expandDimsLayer(_ p: CoreML_Specification_ExpandDimsLayerParams, _ x: Value) -> Value {
        let axes = p.axes.map { Int(clamping: $0) }
        return Value(name: expandDims(x.name, axes), rank: x.rank + axes.count)
    }

    /// `splitSizes` along `axis`, or `numSplits` parts as NumPy's `array_split` makes them (the
    /// first `length mod numSplits` parts one longer).
    mutating func splitND(_ p: CoreML_Specification_SplitNDLayerParams, _ x: Value, outputs: Int) throws -> [Value] {
        if !p.splitSizes.isEmpty {
            guard p.splitSizes.count == outputs else { throw LayerSpecificationError("splitSizes holds \(p.splitSizes.count) sizes for \(outputs) outputs") }
            let names = (0..<max(outputs, 1)).map { _ in emitter.name("split") }
            emitter.operation("split", ["x": [x.name], "axis": [emitter.int(Int(p.axis))], "split_sizes": [emitter.ints(try declaredSizes(p.splitSizes, "splitSizes"))]],
                              outputs: names)
            return names.map { Value(name: $0, rank: x.rank) }
        }
        let parts = p.numSplits == 0 ? outputs : try declared(p.numSplits, "numSplits")
        guard parts >= 1, parts == outputs else { throw LayerSpecificationError("numSplits (\(p.numSplits)) must be the number of outputs (\(outputs))") }
        guard x.rank > 0 else { throw LayerSpecificationError("the input's rank must be known to split it") }
        let axis = try resolved(Int(p.axis), rank: x.rank)
        // length = base · parts + extra; part k starts at k · base + min(k, extra).
        let length = dimensions(of: x.name, from: axis, to: axis + 1)
        let base = op("floor_div", ["x": length, "y": emitter.ints([parts])])
        let extra = op("sub", ["x": length, "y": op("mul", ["x": base, "y": emitter.ints([parts])])])
        var results: [Value] = []
        for k in 0..<parts {
            let start = op("add", ["x": op("mul", ["x": base, "y": emitter.ints([k])]), "y": op("minimum", ["x": extra, "y": emitter.ints([k])])])
            let size = op("add", ["x": base, "y": op("greater", ["x": extra, "y": emitter.ints([k])])])
            let begin = concat([emitter.ints([Int](repeating: 0, count: axis)), start, emitter.ints([Int](repeating: 0, count: x.rank - axis - 1))], axis: 0)
            let sizes = concat([emitter.ints([Int](repeating: -1, count: axis)), size, emitter.ints([Int](repeating: -1, count: x.rank - axis - 1))], axis: 0)
            results.append(Value(name: op("slice_by_size", ["x": x.name, "begin": begin, "size": sizes]), rank: x.rank))
        }
        return results
    }

    /// Repeats along each axis; fewer counts than axes apply to the last axes (NumPy's `tile`).
    mutating func tile(_ p: CoreML_Specification_TileLayerParams, _ inputs: [Value]) throws -> Value {
        guard let x = inputs.first else { throw LayerSpecificationError("tile needs an input") }
        guard x.rank > 0 else { throw LayerSpecificationError("the input's rank must be known to tile it") }
        let reps: String
        if inputs.count > 1 {
            let given = inputs[1].name
            let missing = op("sub", ["x": emitter.ints([x.rank]), "y": op("shape", ["x": given])])
            reps = concat([op("fill", ["shape": missing, "value": emitter.float(1)]), given], axis: 0)
        } else {
            let counts = try declaredSizes(p.reps, "reps")
            guard counts.count <= x.rank else { throw LayerSpecificationError("reps \(p.reps) has more counts than the input has dimensions (\(x.rank))") }
            reps = emitter.ints([Int](repeating: 1, count: x.rank - counts.count) + counts)
        }
        return Value(name: op("tile", ["x": x.name, "reps": reps]), rank: x.rank)
    }

    /// Classic split: equal parts along C.
    mutating func classicSplit(_ p: CoreML_Specification_SplitLayerParams, _ x: Value, outputs: Int) throws -> [Value] {
        let parts = p.nOutputs == 0 ? outputs : try declared(p.nOutputs, "nOutputs")
        guard parts >= 1, parts == outputs else { throw LayerSpecificationError("nOutputs (\(p.nOutputs)) must be the number of outputs (\(outputs))") }
        let names = (0..<parts).map { _ in emitter.name("split") }
        emitter.operation("split", ["x": [x.name], "axis": [emitter.int(x.rank >= 3 ? -3 : -1)], "num_splits": [emitter.int(parts)]], outputs: names)
        return names.map { Value(name: $0, rank: x.rank) }
    }

    mutating func sliceStatic(_ p: CoreML_Specification_SliceStaticLayerParams, _ x: Value) throws -> Value {
        let rank = p.beginIds.count
        guard rank > 0, p.endIds.count == rank, p.beginMasks.count == rank, p.endMasks.count == rank, p.strides.count == rank else {
            throw LayerSpecificationError("beginIds, endIds, beginMasks, endMasks and strides must each hold one value per dimension (\(rank))")
        }
        var inputs = [
            "x": x.name, "begin": emitter.ints(p.beginIds.map { Int(clamping: $0) }), "end": emitter.ints(p.endIds.map { Int(clamping: $0) }),
            "stride": emitter.ints(p.strides.map { Int(clamping: $0) }),
            "begin_mask": boolVector(p.beginMasks), "end_mask": boolVector(p.endMasks),
        ]
        let squeezed = p.squeezeMasks.filter { $0 }.count
        if !p.squeezeMasks.isEmpty { inputs["squeeze_mask"] = boolVector(p.squeezeMasks) }
        return atLeastOneDimension(Value(name: op("slice_by_index", inputs), rank: x.rank - squeezed))
    }

    /// The begin indices from the second input; the ends, strides and masks from the parameters
    /// unless the third and fourth inputs give the ends and strides.
    mutating func sliceDynamic(_ p: CoreML_Specification_SliceDynamicLayerParams, _ inputs: [Value]) throws -> Value {
        guard inputs.count >= 2 else { throw LayerSpecificationError("sliceDynamic needs the input and its begin indices") }
        let x = inputs[0]
        // coremltools writes five of each parameter whatever the rank; the first `rank` apply.
        var p = p
        if x.rank > 0 {
            p.endIds = Array(p.endIds.prefix(x.rank))
            p.strides = Array(p.strides.prefix(x.rank))
            p.beginMasks = Array(p.beginMasks.prefix(x.rank))
            p.endMasks = Array(p.endMasks.prefix(x.rank))
            p.squeezeMasks = Array(p.squeezeMasks.prefix(x.rank))
        }
        let rank = p.beginMasks.count
        var arguments = ["x": x.name, "begin": inputs[1].name]
        arguments["end"] = inputs.count > 2 ? inputs[2].name : emitter.ints(p.endIds.map { Int(clamping: $0) })
        if inputs.count > 3 {
            arguments["stride"] = inputs[3].name
        } else if !p.strides.isEmpty {
            arguments["stride"] = emitter.ints(p.strides.map { Int(clamping: $0) })
        }
        if rank > 0 { arguments["begin_mask"] = boolVector(p.beginMasks) }
        if !p.endMasks.isEmpty { arguments["end_mask"] = boolVector(p.endMasks) }
        let squeezed = p.squeezeMasks.filter { $0 }.count
        if !p.squeezeMasks.isEmpty { arguments["squeeze_mask"] = boolVector(p.squeezeMasks) }
        return atLeastOneDimension(Value(name: op("slice_by_index", arguments), rank: x.rank - squeezed))
    }

    /// `size` values along `axis` from the position the second input holds.
    mutating func sliceBySize(_ p: CoreML_Specification_SliceBySizeLayerParams, _ inputs: [Value]) throws -> Value {
        guard inputs.count == 2 else { throw LayerSpecificationError("sliceBySize takes the input and its begin index") }
        let x = inputs[0]
        guard x.rank > 0 else { throw LayerSpecificationError("the input's rank must be known") }
        let axis = try resolved(Int(p.axis), rank: x.rank)
        let zerosBefore = emitter.ints([Int](repeating: 0, count: axis)), zerosAfter = emitter.ints([Int](repeating: 0, count: x.rank - axis - 1))
        let begin = concat([zerosBefore, reshape(inputs[1].name, keeping: 0, then: [1]), zerosAfter], axis: 0)
        var sizes = [Int](repeating: -1, count: x.rank)
        sizes[axis] = Int(clamping: p.size)
        return Value(name: op("slice_by_size", ["x": x.name, "begin": begin, "size": emitter.ints(sizes)]), rank: x.rank)
    }

    /// Classic slice of C, H or W: `[start, end)` by `stride`, a negative end counting from the end.
    mutating func classicSlice(_ p: CoreML_Specification_SliceLayerParams, _ x: Value) throws -> Value {
        let axis: Int
        switch p.axis {
        case .channelAxis: axis = -3
        case .heightAxis: axis = -2
        case .widthAxis: axis = -1
        case .UNRECOGNIZED(let value): throw LayerSpecificationError("unknown slice axis \(value)")
        }
        guard x.rank >= -axis else { throw LayerSpecificationError("the input has rank \(x.rank); slicing axis \(axis) needs rank \(-axis) or more") }
        var begin = [Int](repeating: 0, count: x.rank), end = begin, stride = [Int](repeating: 1, count: x.rank)
        var beginMask = [Bool](repeating: true, count: x.rank), endMask = beginMask
        let d = x.rank + axis
        begin[d] = Int(clamping: p.startIndex)
        beginMask[d] = false
        end[d] = Int(clamping: p.endIndex)
        endMask[d] = false
        stride[d] = max(1, Int(clamping: p.stride))
        let y = op("slice_by_index", [
            "x": x.name, "begin": emitter.ints(begin), "end": emitter.ints(end), "stride": emitter.ints(stride),
            "begin_mask": boolVector(beginMask), "end_mask": boolVector(endMask),
        ])
        return Value(name: y, rank: x.rank)
    }

    /// One input: the borders `cropAmounts` removes from H and W. Two: the first input's window of
    /// the second's H × W, from `offset` `[H, W]`.
    mutating func crop(_ p: CoreML_Specification_CropLayerParams, _ inputs: [Value]) throws -> Value {
        guard let x = inputs.first, x.rank >= 2 else { throw LayerSpecificationError("crop needs an input with H and W") }
        if inputs.count == 1 {
            let amounts = try Self.borders(p.cropAmounts)
            let begin = [Int](repeating: 0, count: x.rank - 2) + [amounts[0], amounts[2]]
            let end = [Int](repeating: 0, count: x.rank - 2) + [-amounts[1], -amounts[3]]
            let endMask = [Bool](repeating: true, count: x.rank - 2) + [amounts[1] == 0, amounts[3] == 0]
            let y = op("slice_by_index", [
                "x": x.name, "begin": emitter.ints(begin), "end": emitter.ints(end),
                "begin_mask": boolVector([Bool](repeating: true, count: x.rank - 2) + [false, false]), "end_mask": boolVector(endMask),
            ])
            return Value(name: y, rank: x.rank)
        }
        let offset = try declaredSizes(p.offset, "offset")
        guard offset.count == 2 else { throw LayerSpecificationError("offset \(p.offset) must be [H, W] for a crop with two inputs") }
        let sizes = dimensions(of: inputs[1].name, from: inputs[1].rank - 2, to: inputs[1].rank)
        let size = concat([emitter.ints([Int](repeating: -1, count: x.rank - 2)), sizes], axis: 0)
        let begin = emitter.ints([Int](repeating: 0, count: x.rank - 2) + offset)
        return Value(name: op("slice_by_size", ["x": x.name, "begin": begin, "size": size]), rank: x.rank)
    }

    mutating func reorganizeData(_ p: CoreML_Specification_ReorganizeDataLayerParams, _ x: Value) throws -> Value {
        let block = try declared(p.blockSize, "blockSize")
        guard block >= 1 else { throw LayerSpecificationError("blockSize must be positive") }
        let (type, parameter): (String, String)
        switch p.mode {
        case .spaceToDepth: (type, parameter) = ("space_to_depth", "block_size")
        case .depthToSpace: (type, parameter) = ("depth_to_space", "block_size")
        case .pixelShuffle: (type, parameter) = ("pixel_shuffle", "upscale_factor")
        case .UNRECOGNIZED(let value): throw LayerSpecificationError("unknown reorganization mode \(value)")
        }
        return try asNCHW(x) { lowering, nchw in lowering.op(type, ["x": nchw, parameter: lowering.emitter.int(block)]) }
    }

    /// The whole input repeated `nRepetitions` times along the sequence axis.
    mutating func sequenceRepeat(_ p: CoreML_Specification_SequenceRepeatLayerParams, _ x: Value) throws -> Value {
        let times = max(1, try declared(p.nRepetitions, "nRepetitions"))
        let source = x.rank == 3 ? expandDims(x.name, [0]) : x.name
        let rank = max(x.rank, 4)
        var reps = [Int](repeating: 1, count: rank)
        reps[rank - 4] = times
        return Value(name: op("tile", ["x": source, "reps": emitter.ints(reps)]), rank: rank)
    }

    mutating func rankPreservingReshape(_ p: CoreML_Specification_RankPreservingReshapeLayerParams, _ x: Value) -> Value {
        Value(name: op("reshape", ["x": x.name, "shape": emitter.ints(p.targetShape.map { Int(clamping: $0) })]), rank: p.targetShape.count)
    }

    /// Pads the last dimensions by `padAmounts` (`[before, after]` per dimension, leading ones first);
    /// with `padToGivenOutputSizeMode` the amounts are the sizes to reach (0: unchanged), padded at
    /// the end or the start.
    mutating func constantPad(_ p: CoreML_Specification_ConstantPaddingLayerParams, _ x: Value) throws -> Value {
        let amounts = try declaredSizes(p.padAmounts, "padAmounts")
        guard amounts.count % 2 == 0, !amounts.isEmpty else { throw LayerSpecificationError("padAmounts \(p.padAmounts) must hold two values per padded dimension") }
        if p.padToGivenOutputSizeMode {
            // Per padded dimension: reach the size given (the larger of before and after, one of them 0).
            let count = amounts.count / 2
            guard x.rank >= count else { throw LayerSpecificationError("padAmounts pads \(count) dimensions of an input of rank \(x.rank)") }
            let sizes = dimensions(of: x.name, from: x.rank - count, to: x.rank)
            var pads: [String] = []
            for d in 0..<count {
                let target = max(amounts[2 * d], amounts[2 * d + 1])
                let size = op("slice_by_index", ["x": sizes, "begin": emitter.ints([d]), "end": emitter.ints([d + 1])])
                let missing = target == 0 ? emitter.ints([0]) : op("maximum", ["x": op("sub", ["x": emitter.ints([target]), "y": size]), "y": emitter.ints([0])])
                let zero = emitter.ints([0])
                pads += amounts[2 * d] > 0 ? [missing, zero] : [zero, missing]
            }
            let pad = concat(pads, axis: 0)
            return Value(name: op("pad", ["x": x.name, "pad": pad, "mode": emitter.string("constant"), "constant_val": emitter.float(p.value)]), rank: x.rank)
        }
        let y = op("pad", ["x": x.name, "pad": emitter.ints(amounts), "mode": emitter.string("constant"), "constant_val": emitter.float(p.value)])
        return Value(name: y, rank: x.rank)
    }

    mutating func reverse(_ p: CoreML_Specification_ReverseLayerParams, _ x: Value) -> Value {
        let axes = p.reverseDim.isEmpty ? Array(0..<max(x.rank, 1)) : p.reverseDim.indices.filter { p.reverseDim[$0] }
        guard !axes.isEmpty else { return Value(name: op("identity", ["x": x.name]), rank: x.rank) }
        return Value(name: op("reverse", ["x": x.name, "axes": emitter.ints(axes)]), rank: x.rank)
    }

    mutating func reverseSequence(_ p: CoreML_Specification_ReverseSeqLayerParams, _ inputs: [Value]) throws -> Value {
        guard inputs.count == 2 else { throw LayerSpecificationError("reverseSeq takes the input and the sequence lengths") }
        let y = op("reverse_sequence", [
            "x": inputs[0].name, "lengths": inputs[1].name,
            "seq_axis": emitter.int(Int(p.sequenceAxis)), "batch_axis": emitter.int(Int(p.batchAxis)),
        ])
        return Value(name: y, rank: inputs[0].rank)
    }

    mutating func slidingWindows(_ p: CoreML_Specification_SlidingWindowsLayerParams, _ x: Value) throws -> Value {
        let y = op("sliding_windows", [
            "x": x.name, "axis": emitter.int(Int(p.axis)), "size": emitter.int(try declared(p.windowSize, "windowSize")),
            "stride": emitter.int(max(1, try declared(p.step, "step"))),
        ])
        return Value(name: y, rank: x.rank + 1)
    }

    /// `start, start + step, …` below `end`: constants, or the end (then the start and step) from
    /// the inputs.
    mutating func range(end: String, start: String, step: String) -> Value {
        Value(name: op("range_1d", ["end": end, "start": start, "step": step]), rank: 1)
    }

    mutating func rangeDynamic(_ p: CoreML_Specification_RangeDynamicLayerParams, _ inputs: [Value]) throws -> Value {
        guard !inputs.isEmpty else { throw LayerSpecificationError("rangeDynamic needs its end as an input") }
        let scalar = { (lowering: inout LayerLowering, value: Value) in lowering.reshape(value.name, keeping: 0, then: []) }
        let end = scalar(&self, inputs[0])
        let start = inputs.count > 1 ? scalar(&self, inputs[1]) : emitter.float(p.startValue)
        let step = inputs.count > 2 ? scalar(&self, inputs[2]) : emitter.float(p.stepSizeValue)
        return range(end: end, start: start, step: step)
    }

    /// A constant of `value` in the shape of the input (`like`), of `targetShape`, or of the shape the
    /// input holds (`dynamic`).
    mutating func fill(shape: String, value: Float, rank: Int) -> Value {
        Value(name: op("fill", ["shape": shape, "value": emitter.float(value)]), rank: rank)
    }

    /// The first input broadcast to `shape` (a run-time shape vector): `x + 0` over that shape.
    mutating func broadcast(_ x: Value, to shape: String, rank: Int) -> Value {
        Value(name: op("add", ["x": x.name, "y": op("fill", ["shape": shape, "value": emitter.float(0)])]), rank: max(rank, x.rank))
    }

    mutating func boolVector(_ values: [Bool]) -> String {
        emitter.ints(values.map { $0 ? 1 : 0 })
    }

    /// `axis` (negative counting from the end) within `rank`, or an error.
    func resolved(_ axis: Int, rank: Int) throws -> Int {
        let value = axis < 0 ? axis + rank : axis
        guard value >= 0, value < rank else { throw LayerSpecificationError("axis \(axis) is outside the input's \(rank) dimensions") }
        return value
    }
}
