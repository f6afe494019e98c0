import CoreMLSpec

/// Pruned weights: a bit mask saying which values are non-zero, and those values in row-major order.
extension MILConstexprOperations {
    /// iOS 16 `constexpr_sparse_to_dense(nonzero_data, mask, shape)`: `mask` is `shape`'s values'
    /// bits packed into bytes, least significant bit first.
    static let sparseToDenseIOS16: Evaluate = { parameters in
        let nonzero = try parameters.tensor("nonzero_data"), packed = try parameters.tensor("mask")
        let shape = try parameters.integers(parameters.tensor("shape"), "shape", allowNegative: false)
        let count = try parameters.count(shape)
        guard packed.count == (count + 7) / 8 else {
            throw parameters.fail("'mask' has \(packed.count) bytes; shape \(shape) needs \((count + 7) / 8)")
        }
        let bytes = try parameters.integers(packed, "mask", below: 256, allowNegative: false).map { UInt8($0) }
        let bits = MILBlobFile.DataType.unpack(bytes, count: count, bits: 1, signed: false)
        let mask = MILTensor(shape: shape, values: bits.map { Float($0) })
        return [try scatter(nonzero, mask: mask, "nonzero_data", parameters)]
    }

    /// iOS 18 `constexpr_sparse_to_dense(nonzero_data, mask)`: `mask` is a uint1 tensor of the
    /// output's shape.
    static let sparseToDense: Evaluate = { parameters in
        [try scatter(parameters.tensor("nonzero_data"), mask: parameters.tensor("mask"), "nonzero_data", parameters)]
    }

    /// A tensor of `mask`'s shape holding `nonzero`'s values, in order, where `mask` is not zero,
    /// and zeros elsewhere.
    ///
    /// - Throws: when `nonzero` is not a vector of as many values as `mask` has non-zero entries.
    static func scatter(_ nonzero: MILTensor, mask: MILTensor, _ name: String, _ parameters: ConstexprParameters) throws -> MILTensor {
        let set = mask.values.reduce(0) { $0 + ($1 != 0 ? 1 : 0) }
        guard nonzero.shape.count == 1, nonzero.count == set else {
            throw parameters.fail("'\(name)' has shape \(nonzero.shape); the mask sets \(set) values")
        }
        var values = [Float](repeating: 0, count: mask.count)
        var next = 0
        for index in values.indices where mask.values[index] != 0 {
            values[index] = nonzero.values[next]
            next += 1
        }
        return MILTensor(shape: mask.shape, values: values)
    }

    /// The values of `dense` where `mask` (of the same shape) is not zero, in row-major order.
    static func gather(_ dense: MILTensor, mask: MILTensor) -> MILTensor {
        let values = zip(dense.values, mask.values).compactMap { $1 != 0 ? $0 : nil }
        return MILTensor(shape: [values.count], values: values)
    }
}
