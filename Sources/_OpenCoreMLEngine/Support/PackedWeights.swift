import _OpenCoreMLKernels

/// A constant weight matrix per group (a convolution's `outPerGroup`×`rows` kernels, group after
/// group), packed once when the program is compiled into the layout the GEMM kernel of the
/// current instruction set reads, so no run packs them again.
///
/// Packing is tied to the instruction set it was made for: when `ocm_isa()` has changed since
/// (a test forcing the generic kernels), ``withPacked(_:)`` offers nothing and the caller
/// multiplies the plain weights.
struct PackedWeights: Sendable {
    /// The instruction set the matrices were packed for (`ocm_sgemm_pack_a`'s answer).
    let isa: Int32
    /// Floats per group's packed matrix.
    let stride: Int
    private let values: [Float]

    /// Packs `groups` row-major `rows`×`columns` matrices stored one after another in `weights`.
    init(_ weights: [Float], groups: Int, rows: Int, columns: Int) {
        precondition(weights.count == groups * rows * columns, "\(weights.count) weights are not \(groups) of \(rows)×\(columns)")
        let stride = ocm_sgemm_packed_a_floats(Int32(rows), Int32(columns))
        var isa = ocm_isa()
        let values = [Float](unsafeUninitializedCapacity: max(groups * stride, 1)) { packed, count in
            weights.withUnsafeBufferPointer { source in
                for group in 0..<groups {
                    isa = ocm_sgemm_pack_a(false, Int32(rows), Int32(columns), source.baseAddress! + group * rows * columns,
                                           Int32(columns), packed.baseAddress! + group * stride)
                }
            }
            count = max(groups * stride, 1)
        }
        (self.isa, self.stride, self.values) = (isa, stride, values)
    }

    /// Calls `body` with the packed matrices when they still fit the current instruction set,
    /// with nil otherwise.
    func withPacked<Result>(_ body: (UnsafePointer<Float>?) throws -> Result) rethrows -> Result {
        guard isa == ocm_isa() else { return try body(nil) }
        return try values.withUnsafeBufferPointer { try body($0.baseAddress!) }
    }
}
