import _OpenCoreMLTestSupport
import Testing
import _OpenCoreMLKernels

/// Expects `product` (a product with an operand packed for `isa`, run on C starting as `c0`) to
/// give `plain`, now and after every other level is switched to: another thread may switch the
/// instruction set after packing, and the packing level's kernel must still run. Restores the level.
func expectPackedProductAtEveryLevel(_ plain: [Float], from c0: [Float], isa: Int32, _ context: String,
                                     sourceLocation: SourceLocation = #_sourceLocation, _ product: (inout [Float]) -> Void) {
    let packedWith = ocm_isa()
    defer { _ = ocm_set_isa(packedWith) }
    var c = c0
    product(&c)
    expectClose(c, plain.map(Double.init), relative: 1e-6, absolute: 1e-6, context, sourceLocation: sourceLocation)
    for other in [OCM_ISA_SCALAR, OCM_ISA_AVX2, OCM_ISA_AVX512, OCM_ISA_NEON] where ocm_set_isa(other) {
        var later = c0
        product(&later)
        expectClose(later, plain.map(Double.init), relative: 1e-6, absolute: 1e-6, "packed for \(isa), run at \(other): \(context)",
                    sourceLocation: sourceLocation)
    }
}

/// One SGEMM problem: sizes, transposes, extra leading-dimension padding, alpha/beta, and
/// whether C starts as NaN (only meaningful with beta == 0).
struct GEMMCase: CustomTestStringConvertible, Sendable {
    var M: Int, N: Int, K: Int
    var transA = false, transB = false
    var padA = 0, padB = 0, padC = 0
    var alpha: Float = 1, beta: Float = 0
    var nanC = false

    var testDescription: String {
        "\(M)×\(N)×\(K) \(transA ? "T" : "N")\(transB ? "T" : "N") pads \(padA)/\(padB)/\(padC) α=\(alpha) β=\(beta)\(nanC ? " NaN C" : "")"
    }

    var lda: Int { (transA ? M : K) + padA }
    var ldb: Int { (transB ? K : N) + padB }
    var ldc: Int { N + padC }
}

private let transposes = [(false, false), (false, true), (true, false), (true, true)]

private let gemmCases: [GEMMCase] = {
    var cases: [GEMMCase] = []
    for (ta, tb) in transposes {
        // Odd sizes, no multiple of any tile, padded leading dimensions, α and β ≠ 1.
        cases.append(GEMMCase(M: 37, N: 53, K: 29, transA: ta, transB: tb, padA: 3, padB: 5,
                              padC: 7, alpha: 0.7, beta: -1.3))
        // β = 0 must not read C (NaN-filled).
        cases.append(GEMMCase(M: 37, N: 53, K: 29, transA: ta, transB: tb, padC: 2, alpha: 1.5,
                              beta: 0, nanC: true))
        // Several K blocks (β applied only once), threads splitting M.
        cases.append(GEMMCase(M: 67, N: 45, K: 300, transA: ta, transB: tb, padA: 1, padB: 2,
                              padC: 3, alpha: -0.5, beta: 0.25))
    }
    // Degenerate shapes.
    for (ta, tb) in [(false, false), (true, true)] {
        cases.append(GEMMCase(M: 1, N: 1, K: 1, transA: ta, transB: tb, alpha: 2, beta: 0.5))
        cases.append(GEMMCase(M: 1, N: 53, K: 29, transA: ta, transB: tb, beta: 1))
        cases.append(GEMMCase(M: 37, N: 1, K: 29, transA: ta, transB: tb, beta: 1))
        cases.append(GEMMCase(M: 37, N: 53, K: 1, transA: ta, transB: tb, alpha: 3, beta: -1))
    }
    // Several N blocks, threads splitting N (small M), edge tiles everywhere.
    cases.append(GEMMCase(M: 9, N: 1030, K: 37, transB: true, padC: 1, beta: 1))
    cases.append(GEMMCase(M: 19, N: 700, K: 40, transA: true, alpha: 1, beta: 0, nanC: true))
    // A·Bᵀ with a short side and long rows (dot-product path), with every remainder.
    cases.append(GEMMCase(M: 37, N: 9, K: 300, transB: true, padA: 3, padB: 1, padC: 2,
                          alpha: 0.5, beta: 2))
    cases.append(GEMMCase(M: 5, N: 7, K: 129, transB: true, beta: 0, nanC: true))
    cases.append(GEMMCase(M: 1, N: 1, K: 200, transB: true, alpha: -1, beta: 1))
    cases.append(GEMMCase(M: 32, N: 9, K: 676, transB: true, beta: 1))  // LeNet conv 1, dW
    // Tall: threads splitting M.
    cases.append(GEMMCase(M: 301, N: 19, K: 45, beta: 0, nanC: true))
    return cases
}()

/// alpha·op(A)·op(B) + beta·C in Double, and the sum of the terms' magnitudes (for the
/// error bound).
private func referenceGEMM(_ g: GEMMCase, _ a: [Float], _ b: [Float], _ c: [Float])
    -> (value: [Double], scale: [Double])
{
    var value = [Double](repeating: 0, count: g.M * g.ldc)
    var scale = [Double](repeating: 0, count: g.M * g.ldc)
    a.withUnsafeBufferPointer { a in
        b.withUnsafeBufferPointer { b in
            for i in 0..<g.M {
                for j in 0..<g.N {
                    var sum = 0.0, magnitude = 0.0
                    for k in 0..<g.K {
                        let x = Double(g.transA ? a[k * g.lda + i] : a[i * g.lda + k])
                        let y = Double(g.transB ? b[j * g.ldb + k] : b[k * g.ldb + j])
                        sum += x * y
                        magnitude += abs(x * y)
                    }
                    let c0 = g.beta == 0 ? 0 : Double(g.beta) * Double(c[i * g.ldc + j])
                    value[i * g.ldc + j] = Double(g.alpha) * sum + c0
                    scale[i * g.ldc + j] = abs(Double(g.alpha)) * magnitude + abs(c0)
                }
                for j in g.N..<g.ldc {  // padding must stay as it was
                    value[i * g.ldc + j] = Double(c[i * g.ldc + j])
                }
            }
        }
    }
    return (value, scale)
}

extension KernelTests {
    @Suite("GEMM")
    struct GEMM {
        @Test(arguments: gemmCases)
        func matchesReference(_ g: GEMMCase) {
            var random = TestRandom(seed: UInt64(g.M * 1_000_003 + g.N * 1009 + g.K))
            let a = random.floats((g.transA ? g.K : g.M) * g.lda)
            let b = random.floats((g.transB ? g.N : g.K) * g.ldb)
            var c0 = random.floats(g.M * g.ldc)
            if g.nanC {
                for i in 0..<g.M { for j in 0..<g.N { c0[i * g.ldc + j] = .nan } }
            }
            let (expected, scale) = referenceGEMM(g, a, b, c0)
            forEachISAAndThreadCount { context in
                var c = c0
                ocm_sgemm(
                    g.transA, g.transB, Int32(g.M), Int32(g.N), Int32(g.K), g.alpha, a,
                    Int32(g.lda), b, Int32(g.ldb), g.beta, &c, Int32(g.ldc))
                expectClose(
                    c, expected, scale: scale, relative: 1e-6 * Double(g.K + 2),
                    "\(g.testDescription) [\(context)]")
            }
        }

        /// The bias and activation applied to each finished block equal ocm_sgemm followed by the
        /// bias and the activation: several K blocks (applied once, after the last), several
        /// column blocks, padded C (padding untouched), the dot-product path (A·Bᵀ, one row), K = 0.
        @Test(arguments: [(67, 1000, 300, false), (40, 53, 29, false), (3, 5, 200, true), (9, 33, 0, false)])
        func epilogueEqualsTheProductThenBiasAndActivation(M: Int, N: Int, K: Int, transB: Bool) {
            let ldc = N + 3
            var random = TestRandom(seed: UInt64(M * 7 + N))
            let a = random.floats(M * max(K, 1)), b = random.floats(N * max(K, 1)), bias = random.floats(M), columnBias = random.floats(N)
            let c0 = random.floats(M * ldc)
            let ldb = Int32(transB ? max(K, 1) : N)
            let kinds: [(ocm_epilogue_activation, Float, Float, (Float) -> Float)] = [
                (OCM_EPILOGUE_NONE, 0, 0, { $0 }),
                (OCM_EPILOGUE_RELU, 0, 0, { $0 > 0 ? $0 : 0 }),
                (OCM_EPILOGUE_CLAMP, -0.4, 0.3, { min(max($0, -0.4), 0.3) }),
                // Hardswish's threshold in lo; alpha and beta are 0.75 and 0.25 below.
                (OCM_EPILOGUE_HARDSWISH, -0.3, 0, { v in
                    let t = v > -0.3 ? v : 0
                    return t * min(max(0.75 * t + 0.25, 0), 1)
                }),
            ]
            forEachISAAndThreadCount { context in
                var plain = c0
                ocm_sgemm(false, transB, Int32(M), Int32(N), Int32(K), 0.5, a, Int32(max(K, 1)), b, ldb, 0.25, &plain, Int32(ldc))
                for (kind, lo, hi, activation) in kinds {
                    for (withBias, withColumnBias) in [(true, false), (false, false), (false, true), (true, true)] {
                        var c = c0
                        bias.withUnsafeBufferPointer { biasPointer in
                            columnBias.withUnsafeBufferPointer { columnPointer in
                                let epilogue = ocm_gemm_epilogue(row_bias: withBias ? biasPointer.baseAddress : nil, activation: kind, lo: lo, hi: hi,
                                                                 col_bias: withColumnBias ? columnPointer.baseAddress : nil, alpha: 0.75, beta: 0.25)
                                ocm_sgemm_epilogue(false, transB, Int32(M), Int32(N), Int32(K), 0.5, a, Int32(max(K, 1)), b, ldb, 0.25, &c,
                                                   Int32(ldc), epilogue)
                            }
                        }
                        let expected = plain.enumerated().map { index, value -> Double in
                            let (row, column) = index.quotientAndRemainder(dividingBy: ldc)
                            guard column < N else { return Double(value) }
                            return Double(activation(value + (withColumnBias ? columnBias[column] : 0) + (withBias ? bias[row] : 0)))
                        }
                        expectClose(c, expected, relative: 1e-6, absolute: 1e-6,
                                    "\(M)×\(N)×\(K) \(kind) row bias \(withBias) column bias \(withColumnBias) [\(context)]")
                    }
                }
            }
        }

        /// A packed once and used for many products equals ocm_sgemm_epilogue on the same operands:
        /// rows not a multiple of the tile, several K blocks, A transposed when packed, B either way.
        @Test(arguments: [(37, 530, 300, false, false), (8, 49, 192, true, false), (67, 45, 29, false, true), (1, 3, 1, false, false)])
        func prepackedEqualsThePlainProduct(M: Int, N: Int, K: Int, transA: Bool, transB: Bool) {
            var random = TestRandom(seed: UInt64(M * 31 + K))
            let a = random.floats(M * K), b = random.floats(N * K), bias = random.floats(M)
            let c0 = random.floats(M * N)
            let (lda, ldb) = (Int32(transA ? M : K), Int32(transB ? K : N))
            forEachISAAndThreadCount { context in
                var packed = [Float](repeating: .nan, count: ocm_sgemm_packed_a_floats(Int32(M), Int32(K)))
                let isa = ocm_sgemm_pack_a(transA, Int32(M), Int32(K), a, lda, &packed)
                #expect(isa == ocm_isa())
                bias.withUnsafeBufferPointer { biasPointer in
                    let epilogue = ocm_gemm_epilogue(row_bias: biasPointer.baseAddress, activation: OCM_EPILOGUE_CLAMP, lo: -0.5, hi: 0.5, col_bias: nil, alpha: 0, beta: 0)
                    var plain = c0
                    ocm_sgemm_epilogue(transA, transB, Int32(M), Int32(N), Int32(K), 0.75, a, lda, b, ldb, 0.5, &plain, Int32(N), epilogue)
                    expectPackedProductAtEveryLevel(plain, from: c0, isa: isa, "\(M)×\(N)×\(K) A\(transA ? "ᵀ" : "") B\(transB ? "ᵀ" : "") [\(context)]") { c in
                        ocm_sgemm_prepacked(isa, packed, transB, Int32(M), Int32(N), Int32(K), 0.75, b, ldb, 0.5, &c, Int32(N), epilogue)
                    }
                }
            }
        }

        /// B packed once (a dense layer's weight) and used for many products equals
        /// ocm_sgemm_epilogue on the same operands: columns not a multiple of the tile (so threads
        /// split on panel edges), several K blocks, B transposed or not when packed, A either way.
        @Test(arguments: [(37, 530, 300, false, true), (128, 768, 256, false, true), (8, 49, 192, true, false), (67, 45, 29, true, true), (1, 3, 1, false, false)])
        func prepackedRightOperandEqualsThePlainProduct(M: Int, N: Int, K: Int, transA: Bool, transB: Bool) {
            var random = TestRandom(seed: UInt64(M * 17 + N))
            let a = random.floats(M * K), b = random.floats(N * K), bias = random.floats(N)
            let c0 = random.floats(M * N)
            let (lda, ldb) = (Int32(transA ? M : K), Int32(transB ? K : N))
            forEachISAAndThreadCount { context in
                var packed = [Float](repeating: .nan, count: ocm_sgemm_packed_b_floats(Int32(K), Int32(N)))
                let isa = ocm_sgemm_pack_b(transB, Int32(K), Int32(N), b, ldb, &packed)
                #expect(isa == ocm_isa())
                bias.withUnsafeBufferPointer { biasPointer in
                    // A dense layer's bias: one per column.
                    let epilogue = ocm_gemm_epilogue(row_bias: nil, activation: OCM_EPILOGUE_CLAMP, lo: -0.5, hi: 0.5, col_bias: biasPointer.baseAddress, alpha: 0, beta: 0)
                    var plain = c0
                    ocm_sgemm_epilogue(transA, transB, Int32(M), Int32(N), Int32(K), 0.75, a, lda, b, ldb, 0.5, &plain, Int32(N), epilogue)
                    expectPackedProductAtEveryLevel(plain, from: c0, isa: isa, "\(M)×\(N)×\(K) A\(transA ? "ᵀ" : "") B\(transB ? "ᵀ" : "") [\(context)]") { c in
                        ocm_sgemm_prepacked_b(isa, packed, transA, Int32(M), Int32(N), Int32(K), 0.75, a, lda, 0.5, &c, Int32(N), epilogue)
                    }
                }
            }
        }

        /// Batched products equal each product by the definition: small ones (run side by side
        /// on the threads) and large ones (one after another), transposes, a broadcast operand
        /// (stride 0), beta ≠ 0, odd sizes, one batch.
        @Test(arguments: [(4, 20, 30, 17, false, true, false), (3, 7, 5, 64, true, false, true), (2, 200, 200, 64, false, false, false), (1, 9, 4, 3, true, true, false), (5, 128, 64, 128, false, false, true)])
        func batchedProductsEqualEachProduct(batch: Int, M: Int, N: Int, K: Int, transA: Bool, transB: Bool, broadcastB: Bool) {
            var random = TestRandom(seed: UInt64(batch * 1000 + M))
            let a = random.floats(batch * M * K), b = random.floats((broadcastB ? 1 : batch) * K * N), c0 = random.floats(batch * M * N)
            let (lda, ldb) = (transA ? M : K, transB ? K : N)
            var expected = [Double](repeating: 0, count: batch * M * N)
            for i in 0..<batch {
                let (oa, ob) = (i * M * K, broadcastB ? 0 : i * K * N)
                for r in 0..<M {
                    for c in 0..<N {
                        var sum = 0.0
                        for t in 0..<K {
                            sum += Double(a[oa + (transA ? t * lda + r : r * lda + t)]) * Double(b[ob + (transB ? c * ldb + t : t * ldb + c)])
                        }
                        expected[i * M * N + r * N + c] = 0.5 * sum + 0.25 * Double(c0[i * M * N + r * N + c])
                    }
                }
            }
            forEachISAAndThreadCount { context in
                var c = c0
                ocm_sgemm_batched(Int32(batch), transA, transB, Int32(M), Int32(N), Int32(K), 0.5, a, M * K, Int32(lda),
                                  b, broadcastB ? 0 : K * N, Int32(ldb), 0.25, &c, M * N, Int32(N))
                expectClose(c, expected, relative: 1e-5, absolute: 1e-5, "\(batch) × \(M)×\(N)×\(K) [\(context)]")
            }
        }

        @Test func zeroDepthOrZeroAlphaOnlyScalesC() {
            var random = TestRandom(seed: 7)
            let a = random.floats(12), b = random.floats(12)
            let c0 = random.floats(3 * 4)
            forEachISA { isa in
                // K = 0: C = beta·C.
                var c = c0
                ocm_sgemm(false, false, 3, 4, 0, 1, a, 1, b, 4, 2, &c, 4)
                expectClose(c, c0.map { 2 * Double($0) }, relative: 1e-7, "K = 0 [\(isa)]")
                // alpha = 0 with beta = 0: zeros, even over NaN.
                c = [Float](repeating: .nan, count: 12)
                ocm_sgemm(false, false, 3, 4, 3, 0, a, 3, b, 4, 0, &c, 4)
                expectIdentical(c, [Float](repeating: 0, count: 12), "alpha = 0 [\(isa)]")
            }
        }

        @Test func emptyShapesTouchNothing() {
            var c: [Float] = [1, 2, 3]
            ocm_sgemm(false, false, 0, 3, 5, 1, nil, 5, nil, 3, 0, &c, 3)
            ocm_sgemm(false, false, 1, 0, 5, 1, nil, 5, nil, 1, 0, &c, 1)
            #expect(c == [1, 2, 3])
        }

        /// The same product from every instruction set and thread count agrees closely on a
        /// training-sized problem (dense layer, batch 128).
        @Test func trainingShapeAgreesAcrossISAs() {
            let (M, N, K) = (128, 96, 576)
            var random = TestRandom(seed: 11)
            let x = random.floats(M * K), w = random.floats(N * K)
            var first: [Float]? = nil
            forEachISAAndThreadCount { context in
                var y = [Float](repeating: .nan, count: M * N)
                ocm_sgemm(false, true, Int32(M), Int32(N), Int32(K), 1, x, Int32(K), w, Int32(K),
                          0, &y, Int32(N))
                if let first {
                    expectClose(y, first.map(Double.init), relative: 1e-4, absolute: 1e-4,
                                "x·wᵀ [\(context)]")
                } else {
                    first = y
                }
            }
        }
    }
}
