/// Linear (affine) dequantization — each value is `scale × (data − offset)` — and the float16 cast.
extension MILConstexprOperations {
    /// iOS 16 `constexpr_affine_dequantize(quantized_data, zero_point, scale, axis)`: `scale` and
    /// `zero_point` each one value for the whole tensor or one per index along `axis`.
    static let affineDequantize: Evaluate = { parameters in
        let data = try parameters.tensor("quantized_data")
        guard let axis = try parameters.integer("axis") else { throw parameters.fail("parameter 'axis' is missing") }
        let quantization = try LinearQuantization(shape: data.shape, axis: axis, scale: try parameters.tensor("scale"),
                                                  zeroPoint: try parameters.tensor("zero_point"), perChannelNeedsAxis: false) { parameters.fail($0) }
        var values = data.values
        values.withUnsafeMutableBufferPointer { quantization.dequantize($0) }
        return [MILTensor(shape: data.shape, values: values)]
    }

    /// `constexpr_cast(source_val, output_dtype)`: float16 values widened to float32 (the only cast
    /// MIL defines; values are already held as Float).
    static let cast: Evaluate = { parameters in
        guard case .strings(let strings)? = parameters.values["output_dtype"], strings == ["fp32"] else {
            throw parameters.fail("'output_dtype' must be \"fp32\", the one type constexpr_cast makes")
        }
        return [try parameters.tensor("source_val")]
    }

    /// iOS 18 `constexpr_blockwise_shift_scale(data, scale, offset?)`: `scale` (and `offset`, of
    /// the same shape) has `data`'s rank, one value per block; each dimension of `data` is a whole
    /// number of blocks.
    static let blockwiseShiftScale: Evaluate = { parameters in
        let data = try parameters.tensor("data")
        return [try shiftScale(data, parameters)]
    }

    /// iOS 18 `constexpr_sparse_blockwise_shift_scale(data_mask, nonzero_data, scale, offset?)`:
    /// block-wise dequantization of a pruned tensor's non-zero values, each dequantized with the
    /// block of its position in the mask. Outputs the mask and the dequantized values (for a
    /// `constexpr_sparse_to_dense`).
    static let sparseBlockwiseShiftScale: Evaluate = { parameters in
        let mask = try parameters.tensor("data_mask"), nonzero = try parameters.tensor("nonzero_data")
        let dense = try scatter(nonzero, mask: mask, "nonzero_data", parameters)
        let dequantized = try shiftScale(dense, parameters)
        return [mask, gather(dequantized, mask: mask)]
    }

    /// `scale × (data − offset)` with `scale` and `offset` per block of `data`.
    static func shiftScale(_ data: MILTensor, _ parameters: ConstexprParameters) throws -> MILTensor {
        let scale = try parameters.tensor("scale")
        let offset = try parameters.optionalTensor("offset")
        if let offset, offset.shape != scale.shape {
            throw parameters.fail("'offset' has shape \(offset.shape), 'scale' \(scale.shape); they must be equal")
        }
        let grid = try BlockGrid(shape: data.shape, blocks: scale.shape) { parameters.fail("'scale': \($0)") }
        var values = data.values
        grid.forEach { element, block in
            values[element] = scale.values[block] * (values[element] - (offset?.values[block] ?? 0))
        }
        return MILTensor(shape: data.shape, values: values)
    }
}

/// Linear (affine) quantization of a tensor: `scale` and `zeroPoint` one value for the whole tensor
/// or one per index along `axis`. The one place its formulas are written: the constexpr
/// dequantization of weights and the iOS 17 `quantize` and `dequantize` operations use it.
///
/// - quantized = clamp(round(x / scale) + zeroPoint, range), rounding half to even (NumPy's `around`);
/// - dequantized = scale × (q − zeroPoint).
struct LinearQuantization {
    /// One value, or one per channel.
    let scale: [Float]
    let zeroPoint: [Float]
    /// The tensor as `outer × channels × inner` values (channels 1 for whole-tensor parameters).
    let outer: Int, channels: Int, inner: Int

    /// The parameters checked against a tensor of `shape`: each holds one value (a scalar or a
    /// one-value vector) or, with `axis`, one per index along it. A missing `zeroPoint` is 0.
    /// With `perChannelNeedsAxis` (iOS 17), a vector needs `axis` and a scalar takes none;
    /// otherwise (iOS 16's constexpr, which always names an axis) the axis is read only for vectors.
    init(shape: [Int], axis: Int?, scale: MILTensor, zeroPoint: MILTensor?, perChannelNeedsAxis: Bool,
         fail: (String) -> Error) throws {
        let rank = shape.count
        let perChannel = max(scale.count, zeroPoint?.count ?? 1) > 1 || (perChannelNeedsAxis && scale.shape.count == 1)
        for (name, tensor) in [("scale", scale), ("zero_point", zeroPoint)] {
            guard let tensor else { continue }
            guard tensor.shape.count <= 1, tensor.count >= 1 else { throw fail("'\(name)' has shape \(tensor.shape): one value, or a vector along the axis") }
        }
        if let zeroPoint, perChannelNeedsAxis, zeroPoint.shape.count != scale.shape.count {
            throw fail("'zero_point' has shape \(zeroPoint.shape) and 'scale' \(scale.shape): both scalars or both vectors")
        }
        if !perChannelNeedsAxis, let axis, !(axis >= -rank && axis < rank) {
            throw fail("axis \(axis) is out of range for rank \(rank)")
        }
        guard perChannel else {
            if perChannelNeedsAxis, axis != nil { throw fail("'axis' is given, but 'scale' is a scalar") }
            self.scale = [scale.values[0]]
            self.zeroPoint = [zeroPoint?.values[0] ?? 0]
            (outer, channels, inner) = (1, 1, shape.reduce(1, *))
            return
        }
        guard let axis else { throw fail("'scale' is a vector of \(scale.count) values; it needs 'axis'") }
        guard axis >= -rank && axis < rank else { throw fail("axis \(axis) is out of range for rank \(rank)") }
        let resolved = axis < 0 ? axis + rank : axis
        let channels = shape[resolved]
        for (name, tensor) in [("scale", scale), ("zero_point", zeroPoint)] {
            guard let tensor else { continue }
            guard tensor.count == 1 || tensor.count == channels else {
                throw fail("'\(name)' has shape \(tensor.shape): one value, or \(channels) along axis \(axis)")
            }
        }
        self.scale = scale.count == 1 ? [Float](repeating: scale.values[0], count: channels) : scale.values
        let zero = zeroPoint ?? MILTensor(shape: [], values: [0])
        self.zeroPoint = zero.count == 1 ? [Float](repeating: zero.values[0], count: channels) : zero.values
        (outer, self.channels, inner) = (shape[..<resolved].reduce(1, *), channels, shape[(resolved + 1)...].reduce(1, *))
    }

    /// Calls `body(scale, zeroPoint, range)` for each run of values sharing one channel's parameters.
    private func forEachRun(_ count: Int, _ body: (Float, Float, Range<Int>) -> Void) {
        guard count == outer * channels * inner else { return }
        var start = 0
        for _ in 0..<outer {
            for channel in 0..<channels {
                body(scale[channel], zeroPoint[channel], start..<(start + inner))
                start += inner
            }
        }
    }

    /// `values` dequantized in place: scale × (q − zeroPoint).
    func dequantize(_ values: UnsafeMutableBufferPointer<Float>) {
        forEachRun(values.count) { scale, zeroPoint, run in
            for index in run { values[index] = scale * (values[index] - zeroPoint) }
        }
    }

    /// `input` quantized into `output` (of as many values), clamped to `range` (the integer type's).
    func quantize(_ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>, range: ClosedRange<Float>) {
        forEachRun(input.count) { scale, zeroPoint, run in
            for index in run {
                let shifted = (input[index] / scale).rounded(.toNearestOrEven) + zeroPoint
                // A NaN (no integer) becomes the range's lower end, deliberately: Core ML does not say what it gives.
                output[index] = shifted.isNaN ? range.lowerBound : min(max(shifted, range.lowerBound), range.upperBound)
            }
        }
    }
}
