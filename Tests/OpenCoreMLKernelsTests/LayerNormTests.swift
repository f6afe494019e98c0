import _OpenCoreMLTestSupport
import Testing
import _OpenCoreMLKernels

/// Layer normalization of each row by the definition, in Double.
private func referenceLayerNorm(_ x: [Float], gamma: [Float]?, beta: [Float]?, M: Int, N: Int, ld: Int, epsilon: Double) -> [Double] {
    var y = [Double](repeating: 0, count: M * ld)
    for i in 0..<M {
        let row = (0..<N).map { Double(x[i * ld + $0]) }
        let mean = row.reduce(0, +) / Double(N)
        let variance = row.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(N)
        for j in 0..<N {
            y[i * ld + j] = (row[j] - mean) / (variance + epsilon).squareRoot() * Double(gamma?[j] ?? 1) + Double(beta?[j] ?? 0)
        }
    }
    return y
}

extension KernelTests {
    @Suite("Layer normalization")
    struct LayerNorm {
        /// Rows of odd and vector-multiple lengths, a row offset far from 0 (the two-pass
        /// variance), with and without gamma and beta, enough rows to be threaded; a NaN stays in
        /// its row.
        @Test(arguments: [(1, 1), (3, 7), (128, 256), (200, 33), (5, 1000)], [false, true])
        func matchesTheDefinition(shape: (Int, Int), affine: Bool) {
            let (M, N) = shape
            var random = TestRandom(seed: UInt64(M * 1000 + N))
            var x = random.floats(M * N, -3, 3)
            for j in 0..<N { x[j] += 1000 }
            let gamma = affine ? random.floats(N, 0.5, 2) : nil, beta = affine ? random.floats(N) : nil
            let expected = referenceLayerNorm(x, gamma: gamma, beta: beta, M: M, N: N, ld: N, epsilon: 1e-5)
            forEachISAAndThreadCount { context in
                var y = [Float](repeating: .nan, count: M * N)
                ocm_layer_norm_rows(x, &y, gamma, beta, Int32(M), Int32(N), Int32(N), Int32(N), 1e-5)
                // A row of one value is 0 (then beta); the row offset by 1000 loses float digits of x itself.
                expectClose(y, expected, relative: 1e-4, absolute: 1e-4, "\(M)×\(N)\(affine ? " affine" : "") [\(context)]")
                if affine {
                    // gamma and beta one at a time.
                    var scaled = y, shifted = y
                    ocm_layer_norm_rows(x, &scaled, gamma, nil, Int32(M), Int32(N), Int32(N), Int32(N), 1e-5)
                    ocm_layer_norm_rows(x, &shifted, nil, beta, Int32(M), Int32(N), Int32(N), Int32(N), 1e-5)
                    expectClose(scaled, referenceLayerNorm(x, gamma: gamma, beta: nil, M: M, N: N, ld: N, epsilon: 1e-5),
                                relative: 1e-4, absolute: 1e-4, "gamma only [\(context)]")
                    expectClose(shifted, referenceLayerNorm(x, gamma: nil, beta: beta, M: M, N: N, ld: N, epsilon: 1e-5),
                                relative: 1e-4, absolute: 1e-4, "beta only [\(context)]")
                }
            }
        }

        /// In place, with leading dimensions wider than the rows (their gaps untouched), and a NaN
        /// that spoils its own row only.
        @Test func inPlaceWithGapsAndNaN() {
            let (M, N, ld) = (4, 9, 12)
            var random = TestRandom(seed: 99)
            var x = random.floats(M * ld)
            x[ld + 3] = .nan
            let expected = referenceLayerNorm(x, gamma: nil, beta: nil, M: M, N: N, ld: ld, epsilon: 1e-3)
            forEachISAAndThreadCount { context in
                var y = x
                y.withUnsafeMutableBufferPointer { ocm_layer_norm_rows($0.baseAddress, $0.baseAddress, nil, nil, Int32(M), Int32(N), Int32(ld), Int32(ld), 1e-3) }
                for i in 0..<M {
                    for j in 0..<ld {
                        let k = i * ld + j
                        if j >= N {
                            #expect(y[k].bitPattern == x[k].bitPattern, "gap \(i),\(j) [\(context)]")
                        } else if i == 1 {
                            #expect(y[k].isNaN, "row with NaN [\(context)]")
                        } else {
                            #expect(abs(Double(y[k]) - expected[k]) <= 1e-5, "\(i),\(j) [\(context)]")
                        }
                    }
                }
            }
        }
    }
}
