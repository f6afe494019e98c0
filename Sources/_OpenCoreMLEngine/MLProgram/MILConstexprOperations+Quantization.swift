/// Linear (affine) dequantization — each value is `scale × (data − offset)` — and the float16 cast.
extension MILConstexprOperations {
    /// iOS 16 `constexpr_affine_dequantize(quantized_data, zero_point, scale, axis)`: `scale` and
    /// `zero_point` each one value for the whole tensor or one per index along `axis`.
    static let affineDequantize: Evaluate = { parameters in
        let data = try parameters.tensor("quantized_data")
        let scale = try parameters.tensor("scale"), zeroPoint = try parameters.tensor("zero_point")
        let rank = data.shape.count
        guard let axis = try parameters.integer("axis") else { throw parameters.fail("parameter 'axis' is missing") }
        guard axis >= -rank && axis < rank else { throw parameters.fail("axis \(axis) is out of range for rank \(rank)") }
        let channels = data.shape[axis < 0 ? axis + rank : axis]
        let inner = data.shape[((axis < 0 ? axis + rank : axis) + 1)...].reduce(1, *)
        for (name, tensor) in [("scale", scale), ("zero_point", zeroPoint)] {
            guard tensor.shape.count <= 1, tensor.count == 1 || tensor.count == channels else {
                throw parameters.fail("'\(name)' has shape \(tensor.shape): one value, or \(channels) along axis \(axis)")
            }
        }
        var values = data.values
        for index in values.indices {
            let channel = inner == 0 ? 0 : index / inner % max(channels, 1)
            let s = scale.values[scale.count == 1 ? 0 : channel], z = zeroPoint.values[zeroPoint.count == 1 ? 0 : channel]
            values[index] = s * (values[index] - z)
        }
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
