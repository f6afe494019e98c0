import _OpenCoreMLKernels

/// A constant weight matrix per group (a convolution's `outPerGroup`×`rows` kernels, group after
/// group, packed as the left operand of the product), or a right operand (a `linear`'s weight, a
/// `matmul`'s constant `y`), packed once when the program is compiled into the layout the GEMM kernel
/// of the current instruction set reads, so no run packs them again.
///
/// Packing is tied to the instruction set it was made for: when `ocm_isa()` has changed since
/// (a test forcing the generic kernels), ``withPacked(_:)`` offers nothing and the caller
/// multiplies the plain weights.
struct PackedWeights: Sendable {
    /// The instruction set the matrices were packed for (`ocm_sgemm_pack_a`'s or `_b`'s answer).
    let isa: Int32
    /// Floats per group's packed matrix.
    let stride: Int
    private let values: [Float]

    /// Packs `groups` row-major `rows`×`columns` matrices stored one after another in `weights`,
    /// each as the left operand A of `ocm_sgemm_prepacked`.
    init(_ weights: [Float], groups: Int, rows: Int, columns: Int) {
        precondition(weights.count == groups * rows * columns, "\(weights.count) weights are not \(groups) of \(rows)×\(columns)")
        self.init(weights, groups: groups, floats: ocm_sgemm_packed_a_floats(Int32(rows), Int32(columns))) { source, packed in
            ocm_sgemm_pack_a(false, Int32(rows), Int32(columns), source, Int32(columns), packed)
        }
    }

    /// Packs the right operand op(B) (`depth`×`columns`) of `ocm_sgemm_prepacked_b` from a
    /// row-major B: `depth`×`columns`, or `columns`×`depth` when `transposed` (a dense layer's
    /// weight W in x·Wᵀ).
    init(right weights: [Float], depth: Int, columns: Int, transposed: Bool) {
        precondition(weights.count == depth * columns, "\(weights.count) weights are not \(depth)×\(columns)")
        self.init(weights, groups: 1, floats: ocm_sgemm_packed_b_floats(Int32(depth), Int32(columns))) { source, packed in
            ocm_sgemm_pack_b(transposed, Int32(depth), Int32(columns), source, Int32(transposed ? depth : columns), packed)
        }
    }

    /// Packs each of `groups` equal parts of `weights` into `floats` floats with `pack`, which
    /// returns the instruction set it packed for.
    private init(_ weights: [Float], groups: Int, floats stride: Int,
                 pack: (UnsafePointer<Float>, UnsafeMutablePointer<Float>) -> Int32) {
        var isa = ocm_isa()
        let part = weights.count / max(groups, 1)
        let values = [Float](unsafeUninitializedCapacity: max(groups * stride, 1)) { packed, count in
            weights.withUnsafeBufferPointer { source in
                for group in 0..<groups { isa = pack(source.baseAddress! + group * part, packed.baseAddress! + group * stride) }
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
