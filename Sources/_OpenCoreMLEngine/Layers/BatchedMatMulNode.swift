import CoreMLSpec
import _OpenCoreMLKernels

/// Core ML's `batchedMatmul`, on the examples' exact shapes.
///
/// - One input `a` `[…, X1]`: `y = a · W (+ b)`, `[…, X2]`, over every row of `a`. `W` is
///   `[X1, X2]` (`weightMatrixFirstDimension`, `weightMatrixSecondDimension`) stored column-major,
///   i.e. as the rows of `Wᵀ` (`[X2, X1]` row-major, the inner-product layout); `b` has X2 values.
///   Both are trainable. `transposeA`/`transposeB` are ignored, as the specification says.
/// - Two inputs: `y = op(A) · op(B)` over the last two dimensions (`op` transposes when
///   `transposeA`/`transposeB` is set); the leading dimensions broadcast as in NumPy. A rank-1 `A`
///   `(D)` is read as `(1, D)` and a rank-1 `B` `(D)` as `(D, 1)`; the output has rank
///   `max(2, rank A, rank B)` and keeps those unit dimensions.
final class BatchedMatMulNode: LayerNode, @unchecked Sendable {
    let transposeA: Bool
    let transposeB: Bool
    let weightRows: Int  // X1
    let weightColumns: Int  // X2
    let weights: Parameter?
    let bias: Parameter?

    /// Two-input geometry: op(A) is M×K, op(B) is K×N; `offsetsA/B[i]` locate the matrices used by
    /// output matrix i within one example.
    private var m = 0, n = 0, k = 0
    private var offsetsA: [Int] = [], offsetsB: [Int] = []

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_BatchedMatMulLayerParams, inputs: [Blob], outputs: [Blob]) throws {
        transposeA = params.transposeA
        transposeB = params.transposeB
        weightRows = try Self.declaredSize(params.weightMatrixFirstDimension, "weightMatrixFirstDimension", of: spec)
        weightColumns = try Self.declaredSize(params.weightMatrixSecondDimension, "weightMatrixSecondDimension", of: spec)
        let location = "layer '\(spec.name)' (batchedMatmul)"
        if params.int8DynamicQuantize {
            throw EngineError(location, "int8DynamicQuantize is not supported by the OpenCoreML engine")
        }
        if inputs.count == 1 {
            guard weightRows > 0, weightColumns > 0 else {
                throw EngineError(location, "with one input, weightMatrixFirstDimension (\(weightRows)) and weightMatrixSecondDimension (\(weightColumns)) must be positive")
            }
            weights = try Parameter.required("weights", of: spec)
            bias = try Parameter.optional("bias", of: spec)
        } else {
            if params.hasBias_p { throw EngineError(location, "a bias is only supported with one input") }
            weights = nil
            bias = nil
        }
        super.init(spec, inputs: inputs, outputs: outputs)
        parameters = [weights, bias].compactMap { $0 }
    }

    override func prepareForShapes() throws {
        guard inputs.count == 2 else { return }
        let a = inputs[0], b = inputs[1]
        var dimsA = a.shape.dims, dimsB = b.shape.dims
        if dimsA.count == 1 { dimsA.insert(1, at: 0) }
        if dimsB.count == 1 { dimsB.append(1) }
        let (rowsA, colsA) = (dimsA[dimsA.count - 2], dimsA[dimsA.count - 1])
        let (rowsB, colsB) = (dimsB[dimsB.count - 2], dimsB[dimsB.count - 1])
        m = transposeA ? colsA : rowsA
        k = transposeA ? rowsA : colsA
        n = transposeB ? rowsB : colsB
        // The layer table has checked that the leading (batch) dimensions broadcast; the output's are theirs.
        let batchDims = Array(output.shape.dims.dropLast(2))
        let rank = batchDims.count
        let batchA = Array(dimsA.dropLast(2)), batchB = Array(dimsB.dropLast(2))
        let paddedA = [Int](repeating: 1, count: rank - batchA.count) + batchA
        let paddedB = [Int](repeating: 1, count: rank - batchB.count) + batchB
        // Offsets of each broadcast matrix pair, in output order.
        let total = batchDims.reduce(1, *)
        offsetsA = []; offsetsB = []
        offsetsA.reserveCapacity(total); offsetsB.reserveCapacity(total)
        for flat in 0..<total {
            var rest = flat, offsetA = 0, offsetB = 0, strideA = 1, strideB = 1
            for d in stride(from: rank - 1, through: 0, by: -1) {
                let index = rest % batchDims[d]
                rest /= batchDims[d]
                if paddedA[d] != 1 { offsetA += index * strideA }
                if paddedB[d] != 1 { offsetB += index * strideB }
                strideA *= paddedA[d]
                strideB *= paddedB[d]
            }
            offsetsA.append(offsetA * rowsA * colsA)
            offsetsB.append(offsetB * rowsB * colsB)
        }
    }

    override func forward(batch: Int, training: Bool) {
        if let weights {
            let rows = Int32(batch * input.shape.count / weightRows)
            let x1 = Int32(weightRows), x2 = Int32(weightColumns)
            ocm_sgemm(false, true, rows, x2, x1, 1, input.value.pointer, x1, weights.value.pointer, x1, 0, output.value.pointer, x2)
            if let bias { ocm_add_row_vector(output.value.pointer, bias.value.pointer, rows, x2, x2) }
            return
        }
        let a = inputs[0], b = inputs[1]
        let (m, n, k) = (Int32(self.m), Int32(self.n), Int32(self.k))
        let lda = transposeA ? m : k, ldb = transposeB ? k : n
        let sizeA = a.shape.count, sizeB = b.shape.count, sizeY = output.shape.count
        for example in 0..<batch {
            let pa = a.value.pointer + example * sizeA, pb = b.value.pointer + example * sizeB
            let py = output.value.pointer + example * sizeY
            for (i, (offsetA, offsetB)) in zip(offsetsA, offsetsB).enumerated() {
                ocm_sgemm(transposeA, transposeB, m, n, k, 1, pa + offsetA, lda, pb + offsetB, ldb, 0, py + i * self.m * self.n, n)
            }
        }
    }

    override var hasBackward: Bool { true }

    override func backward(batch: Int) {
        let dy = output.gradient.pointer
        if let weights {
            let rows = Int32(batch * input.shape.count / weightRows)
            let x1 = Int32(weightRows), x2 = Int32(weightColumns)
            // Stored Wᵀ is X2×X1: d(Wᵀ) = dYᵀ · X; dX = dY · Wᵀ.
            if weights.isTrainable {
                ocm_sgemm(true, false, x2, x1, rows, 1, dy, x2, input.value.pointer, x1, 0, weights.gradient.pointer, x1)
            }
            if let bias, bias.isTrainable { ocm_sum_rows(dy, bias.gradient.pointer, rows, x2, x2, false) }
            if input.needsGradient {
                input.writeGradient { dx, accumulate in
                    ocm_sgemm(false, false, rows, x1, x2, 1, dy, x2, weights.value.pointer, x1, accumulate ? 1 : 0, dx, x1)
                }
            }
            return
        }
        let a = inputs[0], b = inputs[1]
        let (m, n, k) = (Int32(self.m), Int32(self.n), Int32(self.k))
        let lda = transposeA ? m : k, ldb = transposeB ? k : n
        let sizeA = a.shape.count, sizeB = b.shape.count, sizeY = output.shape.count
        let matrix = self.m * self.n
        if a.needsGradient {
            setGradient(of: a, count: batch * sizeA) { da in
                da.update(repeating: 0, count: batch * sizeA)
                for example in 0..<batch {
                    let pb = b.value.pointer + example * sizeB, pdy = dy + example * sizeY, pda = da + example * sizeA
                    for (i, (offsetA, offsetB)) in zip(offsetsA, offsetsB).enumerated() {
                        if transposeA {
                            // A is K×M: dA = op(B) · dYᵀ.
                            ocm_sgemm(transposeB, true, k, m, n, 1, pb + offsetB, ldb, pdy + i * matrix, n, 1, pda + offsetA, m)
                        } else {
                            // A is M×K: dA = dY · op(B)ᵀ.
                            ocm_sgemm(false, !transposeB, m, k, n, 1, pdy + i * matrix, n, pb + offsetB, ldb, 1, pda + offsetA, k)
                        }
                    }
                }
            }
        }
        if b.needsGradient {
            setGradient(of: b, count: batch * sizeB) { db in
                db.update(repeating: 0, count: batch * sizeB)
                for example in 0..<batch {
                    let pa = a.value.pointer + example * sizeA, pdy = dy + example * sizeY, pdb = db + example * sizeB
                    for (i, (offsetA, offsetB)) in zip(offsetsA, offsetsB).enumerated() {
                        if transposeB {
                            // B is N×K: dB = dYᵀ · op(A).
                            ocm_sgemm(true, transposeA, n, k, m, 1, pdy + i * matrix, n, pa + offsetA, lda, 1, pdb + offsetB, k)
                        } else {
                            // B is K×N: dB = op(A)ᵀ · dY.
                            ocm_sgemm(!transposeA, false, k, n, m, 1, pa + offsetA, lda, pdy + i * matrix, n, 1, pdb + offsetB, n)
                        }
                    }
                }
            }
        }
    }

    override func store(in spec: inout CoreML_Specification_NeuralNetworkLayer) {
        guard case .batchedMatmul(var params)? = spec.layer, let weights else { return }
        weights.store(in: &params.weights)
        bias?.store(in: &params.bias)
        spec.batchedMatmul = params
    }
}
