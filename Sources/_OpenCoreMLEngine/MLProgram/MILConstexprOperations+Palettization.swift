import CoreMLSpec

/// Palettized weights: each value an index into a look-up table (LUT) of 2ⁿ entries.
extension MILConstexprOperations {
    /// iOS 16 `constexpr_lut_to_dense(indices, lut, shape)`: one LUT of 2, 4, 16, 64 or 256 values
    /// for the whole tensor; `indices` is the n-bit indices packed into bytes, least significant bit
    /// first, n = log₂ of the LUT's size.
    static let lutToDenseIOS16: Evaluate = { parameters in
        let lut = try parameters.tensor("lut"), packed = try parameters.tensor("indices")
        let shape = try parameters.integers(parameters.tensor("shape"), "shape", allowNegative: false)
        guard lut.shape.count == 1, let bits = [2: 1, 4: 2, 16: 4, 64: 6, 256: 8][lut.count] else {
            throw parameters.fail("'lut' has shape \(lut.shape); it must be a vector of 2, 4, 16, 64 or 256 values")
        }
        let count = try parameters.count(shape)
        let needed = count / 8 * bits + (count % 8 * bits + 7) / 8  // ⌈count·bits / 8⌉ without overflow
        guard packed.count == needed else {
            throw parameters.fail("'indices' has \(packed.count) bytes; \(count) \(bits)-bit indices take \(needed)")
        }
        let bytes = try parameters.integers(packed, "indices", below: 256, allowNegative: false).map { UInt8($0) }
        let indices = MILBlobFile.DataType.unpack(bytes, count: count, bits: bits, signed: false)
        return [MILTensor(shape: shape, values: indices.map { lut.values[$0] })]
    }

    /// iOS 18 `constexpr_lut_to_dense(indices, lut, vector_axis?)`.
    static let lutToDense: Evaluate = { parameters in
        [try palettize(parameters.tensor("indices"), "indices", parameters)]
    }

    /// iOS 18 `constexpr_lut_to_sparse(indices_mask, indices_nonzero_data, lut, vector_axis?)`:
    /// palettization of a pruned tensor's non-zero values. Outputs the mask (repeated along
    /// `vector_axis` for vector LUTs) and the values where it is set (for a
    /// `constexpr_sparse_to_dense`).
    static let lutToSparse: Evaluate = { parameters in
        let mask = try parameters.tensor("indices_mask")
        let indices = try scatter(parameters.tensor("indices_nonzero_data"), mask: mask, "indices_nonzero_data", parameters)
        let dense = try palettize(indices, "indices_nonzero_data", parameters)
        let expanded = dense.shape == mask.shape ? mask : try repeatAlongVectorAxis(mask, to: dense.shape, parameters)
        return [expanded, gather(dense, mask: expanded)]
    }

    /// iOS 18 palettization: `lut` has shape `[B₁, …, Bₖ, 2ⁿ, V]` for indices of rank k — a LUT per
    /// block of the indices (each dimension a whole number of blocks), each entry V values. With
    /// V > 1 each index stands for V consecutive values along `vector_axis`, so that dimension of
    /// the output is V times the indices'.
    static func palettize(_ indices: MILTensor, _ name: String, _ parameters: ConstexprParameters) throws -> MILTensor {
        let lut = try parameters.tensor("lut")
        let rank = indices.shape.count
        guard rank >= 1, lut.shape.count == rank + 2 else {
            throw parameters.fail("'lut' has shape \(lut.shape); indices of shape \(indices.shape) need rank \(rank + 2)")
        }
        let entries = lut.shape[rank], vectorSize = lut.shape[rank + 1]
        guard entries >= 1, entries <= 256, entries & (entries - 1) == 0, vectorSize >= 1 else {
            throw parameters.fail("'lut' has shape \(lut.shape): \(entries) entries (a power of two up to 256) of \(vectorSize) values")
        }
        let grid = try BlockGrid(shape: indices.shape, blocks: Array(lut.shape[..<rank])) { parameters.fail("'lut': \($0)") }
        var outputShape = indices.shape, axis = rank - 1
        if vectorSize > 1 {
            guard let vectorAxis = try parameters.integer("vector_axis") else {
                throw parameters.fail("a LUT of \(vectorSize)-value vectors needs 'vector_axis'")
            }
            guard vectorAxis >= -rank && vectorAxis < rank else {
                throw parameters.fail("vector_axis \(vectorAxis) is out of range for rank \(rank)")
            }
            axis = vectorAxis < 0 ? vectorAxis + rank : vectorAxis
            outputShape[axis] *= vectorSize
        }
        let keys = try parameters.integers(indices, name, below: entries, allowNegative: false)
        var values = [Float](repeating: 0, count: try parameters.count(outputShape))
        // Element (i₀ … i_axis … iₖ) of the indices fills output elements (i₀ … i_axis·V + v … iₖ).
        let inner = indices.shape[(axis + 1)...].reduce(1, *)
        grid.forEach { element, block in
            let outer = element / (inner * indices.shape[axis]), along = element / inner % indices.shape[axis], within = element % inner
            let base = (outer * outputShape[axis] + along * vectorSize) * inner + within
            let entry = (block * entries + keys[element]) * vectorSize
            for v in 0..<vectorSize { values[base + v * inner] = lut.values[entry + v] }
        }
        return MILTensor(shape: outputShape, values: values)
    }

    /// `mask` with each value repeated V times along the vector axis, to `shape`.
    private static func repeatAlongVectorAxis(_ mask: MILTensor, to shape: [Int], _ parameters: ConstexprParameters) throws -> MILTensor {
        guard let axis = mask.shape.indices.first(where: { mask.shape[$0] != shape[$0] }), mask.shape[axis] > 0 else {
            return MILTensor(shape: shape, values: [Float](repeating: 0, count: shape.reduce(1, *)))
        }
        let vectorSize = shape[axis] / mask.shape[axis], inner = mask.shape[(axis + 1)...].reduce(1, *)
        var values = [Float](repeating: 0, count: try parameters.count(shape))
        for element in mask.values.indices {
            let outer = element / (inner * mask.shape[axis]), along = element / inner % mask.shape[axis], within = element % inner
            let base = (outer * shape[axis] + along * vectorSize) * inner + within
            for v in 0..<vectorSize { values[base + v * inner] = mask.values[element] }
        }
        return MILTensor(shape: shape, values: values)
    }
}
