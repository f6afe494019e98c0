import _OpenCoreMLTestSupport
import Foundation
import Testing
import _OpenCoreMLKernels

/// Lengths around the vector widths (8, 16) plus one long enough to be split over threads.
private let lengths = [0, 1, 7, 8, 16, 17, 33, 100, 70_001]

/// Inputs in [lo, hi) with some special values mixed in.
private func inputs(_ count: Int, seed: UInt64, _ lo: Float = -4, _ hi: Float = 4) -> [Float] {
    var random = TestRandom(seed: seed)
    var x = random.floats(count, lo, hi)
    let specials: [Float] = [0, -0.0, 1e-6, -1e-6, 0.625, -0.625, 0.63, 30, -30, 100, -100, 1e-30]
    for (i, v) in specials.enumerated() where i * 3 < count { x[i * 3] = v }
    return x
}

/// Runs a unary kernel out of place and in place, for every length, ISA and thread count,
/// against a Double reference.
private func checkUnary(
    _ name: String, relative: Double, absolute: Double = 0, lo: Float = -4, hi: Float = 4,
    reference: (Double) -> Double,
    kernel: (UnsafePointer<Float>, UnsafeMutablePointer<Float>, Int) -> Void,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    for n in lengths {
        let x = inputs(n, seed: UInt64(n), lo, hi)
        let expected = x.map { reference(Double($0)) }
        forEachISAAndThreadCount { context in
            var y = [Float](repeating: .nan, count: n)
            x.withUnsafeBufferPointer { xp in
                y.withUnsafeMutableBufferPointer { kernel(xp.baseAddress!, $0.baseAddress!, n) }
            }
            expectClose(y, expected, relative: relative, absolute: absolute,
                        "\(name) n=\(n) [\(context)]", sourceLocation: sourceLocation)
            var inPlace = x
            inPlace.withUnsafeMutableBufferPointer { kernel($0.baseAddress!, $0.baseAddress!, n) }
            expectIdentical(inPlace, y, "\(name) in place n=\(n) [\(context)]", sourceLocation: sourceLocation)
        }
    }
}

/// Same for kernels of two inputs (the output may alias the first).
private func checkBinary(
    _ name: String, relative: Double, absolute: Double = 0, aRange: (Float, Float) = (-4, 4),
    reference: (Double, Double) -> Double,
    kernel: (UnsafePointer<Float>, UnsafePointer<Float>, UnsafeMutablePointer<Float>, Int) -> Void,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    for n in lengths {
        let a = inputs(n, seed: UInt64(n) + 100, aRange.0, aRange.1)
        let b = inputs(n, seed: UInt64(n) + 200)
        let expected = (0..<n).map { reference(Double(a[$0]), Double(b[$0])) }
        forEachISAAndThreadCount { context in
            var y = [Float](repeating: .nan, count: n)
            a.withUnsafeBufferPointer { ap in
                b.withUnsafeBufferPointer { bp in
                    y.withUnsafeMutableBufferPointer { kernel(ap.baseAddress!, bp.baseAddress!, $0.baseAddress!, n) }
                }
            }
            expectClose(y, expected, relative: relative, absolute: absolute,
                        "\(name) n=\(n) [\(context)]", sourceLocation: sourceLocation)
        }
    }
}

private func sigmoid(_ x: Double) -> Double { 1 / (1 + exp(-x)) }

extension KernelTests {
    @Suite("Elementwise")
    struct Elementwise {
        @Test func activations() {
            checkUnary("relu", relative: 0, reference: { max($0, 0) }) { ocm_relu($0, $1, $2) }
            checkUnary("leaky relu", relative: 1e-7, reference: { $0 > 0 ? $0 : Double(Float(0.1) * Float($0)) }) {
                ocm_leaky_relu($0, $1, $2, 0.1)
            }
            checkUnary("sigmoid", relative: 2e-6, absolute: 1e-7, lo: -20, hi: 20, reference: sigmoid) {
                ocm_sigmoid($0, $1, $2)
            }
            checkUnary("tanh", relative: 2e-6, absolute: 1e-7, reference: { Foundation.tanh($0) }) {
                ocm_tanh($0, $1, $2)
            }
            checkUnary("scale", relative: 1e-7, reference: { -1.5 * $0 }) { ocm_scale($0, $1, $2, -1.5) }
        }

        @Test func activationGradients() {
            checkBinary("relu backward", relative: 0, reference: { $0 > 0 ? $1 : 0 }) {
                ocm_relu_backward($0, $1, $2, $3)
            }
            checkBinary("leaky relu backward", relative: 1e-7, reference: { $0 > 0 ? $1 : Double(Float(0.2) * Float($1)) }) {
                ocm_leaky_relu_backward($0, $1, $2, $3, 0.2)
            }
            checkBinary("sigmoid backward", relative: 1e-6, absolute: 1e-6, aRange: (0, 1),
                        reference: { $1 * $0 * (1 - $0) }) { ocm_sigmoid_backward($0, $1, $2, $3) }
            checkBinary("tanh backward", relative: 1e-6, absolute: 1e-6, aRange: (-1, 1),
                        reference: { $1 * (1 - $0 * $0) }) { ocm_tanh_backward($0, $1, $2, $3) }
        }

        /// relu_backward gives the same gradient from relu's input or from its output.
        @Test func reluBackwardFromInputOrOutput() {
            let x = inputs(1001, seed: 1), dy = inputs(1001, seed: 2)
            forEachISA { isa in
                var y = [Float](repeating: 0, count: x.count)
                ocm_relu(x, &y, x.count)
                var fromInput = [Float](repeating: .nan, count: x.count), fromOutput = fromInput
                ocm_relu_backward(x, dy, &fromInput, x.count)
                ocm_relu_backward(y, dy, &fromOutput, x.count)
                expectIdentical(fromInput, fromOutput, "[\(isa)]")
            }
        }

        @Test func arithmetic() {
            checkBinary("add", relative: 1e-7, absolute: 1e-7, reference: { $0 + $1 }) { ocm_add($0, $1, $2, $3) }
            checkBinary("mul", relative: 1e-7, absolute: 1e-37, reference: { $0 * $1 }) { ocm_mul($0, $1, $2, $3) }
            // axpy: y (second input, copied into the output first) += 0.75·x.
            checkBinary("axpy", relative: 1e-6, absolute: 1e-6, reference: { $1 + 0.75 * $0 }) { x, y0, y, n in
                y.update(from: y0, count: n)
                ocm_axpy(x, y, n, 0.75)
            }
            for n in lengths {
                forEachISAAndThreadCount { context in
                    var y = [Float](repeating: .nan, count: n)
                    ocm_fill(&y, n, 2.5)
                    #expect(y.allSatisfy { $0 == 2.5 }, "fill n=\(n) [\(context)]")
                }
            }
        }

        @Test func rowAndColumnReductions() {
            for (M, N, ld) in [(37, 53, 60), (1, 1, 1), (300, 700, 701), (0, 5, 5)] {
                var random = TestRandom(seed: UInt64(M * N + 1))
                let x = random.floats(M * ld)
                let start = random.floats(max(M, N))
                var rowSums = [Double](repeating: 0, count: N), colSums = [Double](repeating: 0, count: M)
                for i in 0..<M {
                    for j in 0..<N {
                        rowSums[j] += Double(x[i * ld + j])
                        colSums[i] += Double(x[i * ld + j])
                    }
                }
                forEachISAAndThreadCount { context in
                    var y = [Float](repeating: .nan, count: N)
                    ocm_sum_rows(x, &y, Int32(M), Int32(N), Int32(ld), false)
                    expectClose(y, rowSums, relative: 1e-5, absolute: 1e-4, "sum rows \(M)×\(N) [\(context)]")
                    y = Array(start[0..<N])
                    ocm_sum_rows(x, &y, Int32(M), Int32(N), Int32(ld), true)
                    expectClose(y, (0..<N).map { rowSums[$0] + Double(start[$0]) }, relative: 1e-5,
                                absolute: 1e-4, "sum rows accumulate \(M)×\(N) [\(context)]")
                    var z = [Float](repeating: .nan, count: M)
                    ocm_sum_cols(x, &z, Int32(M), Int32(N), Int32(ld), false)
                    expectClose(z, colSums, relative: 1e-5, absolute: 1e-4, "sum cols \(M)×\(N) [\(context)]")
                    z = Array(start[0..<M])
                    ocm_sum_cols(x, &z, Int32(M), Int32(N), Int32(ld), true)
                    expectClose(z, (0..<M).map { colSums[$0] + Double(start[$0]) }, relative: 1e-5,
                                absolute: 1e-4, "sum cols accumulate \(M)×\(N) [\(context)]")
                }
            }
        }

        @Test func broadcastAdds() {
            for (M, N, ld) in [(37, 53, 60), (1, 1, 1), (300, 700, 701)] {
                var random = TestRandom(seed: UInt64(M + N))
                let x = random.floats(M * ld), row = random.floats(N), col = random.floats(M)
                var expectedRow = x.map(Double.init), expectedCol = x.map(Double.init)
                for i in 0..<M {
                    for j in 0..<N {
                        expectedRow[i * ld + j] += Double(row[j])
                        expectedCol[i * ld + j] += Double(col[i])
                    }
                }
                forEachISAAndThreadCount { context in
                    var y = x
                    ocm_add_row_vector(&y, row, Int32(M), Int32(N), Int32(ld))
                    expectClose(y, expectedRow, relative: 1e-6, absolute: 1e-6, "add row \(M)×\(N) [\(context)]")
                    y = x
                    ocm_add_col_vector(&y, col, Int32(M), Int32(N), Int32(ld))
                    expectClose(y, expectedCol, relative: 1e-6, absolute: 1e-6, "add col \(M)×\(N) [\(context)]")
                }
            }
        }

        /// Core ML's clip (ReLU6 among them): both bounds, NaN kept, no bound at ±infinity; its
        /// backward from the output passes the gradient strictly inside the bounds only.
        @Test func clamp() {
            checkUnary("clamp", relative: 0, reference: { min(max($0, -1.5), 2) }) { ocm_clamp($0, $1, $2, -1.5, 2) }
            checkUnary("clamp without bounds", relative: 0, reference: { $0 }) { ocm_clamp($0, $1, $2, -.infinity, .infinity) }
            checkBinary("clamp backward", relative: 0, reference: { $0 > -1.5 && $0 < 2 ? $1 : 0 }) {
                ocm_clamp_backward($0, $1, $2, $3, -1.5, 2)
            }
            forEachISA { isa in
                let x: [Float] = [.nan, -.infinity, .infinity, 6, 0, 7, -1]
                var y = [Float](repeating: 0, count: x.count)
                ocm_clamp(x, &y, x.count, 0, 6)
                #expect(y[0].isNaN && Array(y[1...]) == [0, 6, 6, 0, 6, 0], "ReLU6 [\(isa)]")
                var dx = [Float](repeating: .nan, count: x.count)
                ocm_clamp_backward(y, [Float](repeating: 1, count: x.count), &dx, x.count, 0, 6)
                #expect(dx == [0, 0, 0, 0, 0, 0, 0], "ReLU6 backward at and beyond the bounds [\(isa)]")
            }
        }
    }
}
