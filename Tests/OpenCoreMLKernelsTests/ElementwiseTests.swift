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

        /// Every float16 bit pattern converts to the float32 Swift's `Float16` gives, at every
        /// level (F16C's eight at a time and the bits rearranged for the rest): NaN stays NaN with
        /// its sign (F16C quiets a signalling NaN), everything else is the same bits.
        @Test func halfToFloat() {
            let patterns = (0...UInt16.max).map { $0 }
            let expected = patterns.map { Float(Float16(bitPattern: $0)) }
            forEachISA { isa in
                for n in [patterns.count, 13, 8, 7, 0] {
                    var y = [Float](repeating: 7, count: n)
                    ocm_half_to_float(patterns, &y, n)
                    let wrong = (0..<n).filter { i in
                        expected[i].isNaN ? !(y[i].isNaN && y[i].sign == expected[i].sign) : y[i].bitPattern != expected[i].bitPattern
                    }
                    #expect(wrong.isEmpty, "\(wrong.count) of \(n) patterns differ, first \(wrong.first.map { String(patterns[$0], radix: 16) } ?? "") [\(isa)]")
                }
            }
        }

        /// Hardswish in one pass equals the three operations converters write for it
        /// (thresholded ReLU, hard sigmoid, product), values at the threshold and the gate's
        /// corners included; NaN becomes 0 (as the thresholded ReLU makes it), infinity stays.
        @Test func hardswish() {
            let reference: (Double) -> Double = { v in
                let t = v > -3 ? v : 0
                return t * min(max(t / 6 + 0.5, 0), 1)
            }
            checkUnary("hardswish", relative: 1e-6, absolute: 1e-7, lo: -5, hi: 5, reference: reference) {
                ocm_hardswish($0, $1, $2, -3, 1.0 / 6, 0.5)
            }
            forEachISA { isa in
                let x: [Float] = [.nan, -.infinity, .infinity, -3, -3.0000002, -2.9999998, 3, 2.9999998, 0, -0.0]
                var y = [Float](repeating: 7, count: x.count)
                ocm_hardswish(x, &y, x.count, -3, 1.0 / 6, 0.5)
                // Three passes as the unfused operations run: thresholded ReLU, hard sigmoid, product.
                var t = [Float](repeating: 0, count: x.count), s = t, unfused = t
                ocm_unary(OCM_UNARY_THRESHOLDED_RELU, x, &t, x.count, -3, 0)
                ocm_unary(OCM_UNARY_HARD_SIGMOID, t, &s, x.count, 1.0 / 6, 0.5)
                ocm_binary(OCM_BINARY_MUL, t, s, &unfused, x.count)
                #expect(y.map(\.bitPattern) == unfused.map(\.bitPattern), "hardswish \(y) against \(unfused) [\(isa)]")
                #expect(y[0] == 0 && y[2] == .infinity && y[3] == 0 && y[6] == 3, "hardswish's special values \(y) [\(isa)]")
            }
        }
    }
}

private func softplus(_ x: Double) -> Double { max(x, 0) + log1p(exp(-abs(x))) }

/// The float16 value nearest v (ties to even), by Double arithmetic: the reference for ROUND_HALF.
private func nearestHalf(_ v: Double) -> Double {
    guard v.isFinite else { return v }
    let m = abs(v)
    if m >= 65520 { return v < 0 ? -.infinity : .infinity }
    let step = m < 0x1p-14 ? 0x1p-24 : Double(sign: .plus, exponent: m.exponent - 10, significand: 1)
    return (v / step).rounded(.toNearestOrEven) * step
}

/// A unary kernel against a Double reference on random inputs in [lo, hi) only (no special
/// values: functions with a restricted domain), for every length, ISA and thread count.
private func checkOnRange(
    _ name: String, relative: Double, absolute: Double = 1e-30, lo: Float, hi: Float,
    reference: (Double) -> Double, kernel: (UnsafePointer<Float>, UnsafeMutablePointer<Float>, Int) -> Void,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    for n in lengths {
        var random = TestRandom(seed: UInt64(n) + 300)
        let x = random.floats(n, lo, hi)
        let expected = x.map { reference(Double($0)) }
        forEachISAAndThreadCount { context in
            var y = [Float](repeating: .nan, count: n)
            x.withUnsafeBufferPointer { xp in y.withUnsafeMutableBufferPointer { kernel(xp.baseAddress!, $0.baseAddress!, n) } }
            expectClose(y, expected, relative: relative, absolute: absolute, "\(name) n=\(n) [\(context)]", sourceLocation: sourceLocation)
        }
    }
}

extension KernelTests {
    /// ocm_unary, ocm_binary, the broadcasting driver and per-channel PReLU, against Double references.
    @Suite("Elementwise functions by number")
    struct ElementwiseFunctions {
        @Test func unaryFunctions() {
            func unary(_ op: ocm_unary_op, _ p: Float = 0, _ q: Float = 0) -> (UnsafePointer<Float>, UnsafeMutablePointer<Float>, Int) -> Void {
                { ocm_unary(op, $0, $1, $2, p, q) }
            }
            checkOnRange("exp", relative: 2e-6, absolute: 1e-37, lo: -80, hi: 80, reference: { exp($0) }, kernel: unary(OCM_UNARY_EXP))
            checkOnRange("log", relative: 1e-6, absolute: 1e-6, lo: 0.01, hi: 50, reference: { log($0 + 0.5) }, kernel: unary(OCM_UNARY_LOG, 0.5))
            checkOnRange("sqrt", relative: 1e-6, lo: 0, hi: 100, reference: { $0.squareRoot() }, kernel: unary(OCM_UNARY_SQRT))
            checkOnRange("rsqrt", relative: 1e-6, lo: 0, hi: 100, reference: { 1 / ($0 + 1e-3).squareRoot() }, kernel: unary(OCM_UNARY_RSQRT, 1e-3))
            checkOnRange("inverse", relative: 1e-6, lo: 0, hi: 100, reference: { 1 / ($0 + 0.25) }, kernel: unary(OCM_UNARY_INVERSE, 0.25))
            checkUnary("abs", relative: 0, reference: { abs($0) }, kernel: unary(OCM_UNARY_ABS))
            checkUnary("square", relative: 1e-7, absolute: 1e-37, reference: { $0 * $0 }, kernel: unary(OCM_UNARY_SQUARE))
            checkOnRange("power", relative: 1e-5, absolute: 1e-6, lo: 0, hi: 4, reference: { pow($0, 2.5) }, kernel: unary(OCM_UNARY_POWER, 2.5))
            checkUnary("threshold", relative: 0, reference: { max($0, Double(Float(0.3))) }, kernel: unary(OCM_UNARY_THRESHOLD, 0.3))
            checkUnary("affine", relative: 1e-6, absolute: 1e-6, reference: { 1.5 * $0 - 0.25 }, kernel: unary(OCM_UNARY_AFFINE, 1.5, -0.25))
            checkUnary("elu", relative: 2e-6, absolute: 1e-6, reference: { $0 > 0 ? $0 : 0.8 * (exp($0) - 1) }, kernel: unary(OCM_UNARY_ELU, 0.8))
            checkUnary("softplus", relative: 2e-6, absolute: 1e-7, lo: -30, hi: 30, reference: softplus, kernel: unary(OCM_UNARY_SOFTPLUS))
            checkUnary("softsign", relative: 1e-6, reference: { $0 / (1 + abs($0)) }, kernel: unary(OCM_UNARY_SOFTSIGN))
            checkUnary("silu", relative: 2e-6, absolute: 1e-7, lo: -20, hi: 20, reference: { $0 * sigmoid($0) }, kernel: unary(OCM_UNARY_SILU))
            checkUnary("hard sigmoid", relative: 1e-6, absolute: 1e-7, reference: { min(max(0.2 * $0 + 0.5, 0), 1) },
                       kernel: unary(OCM_UNARY_HARD_SIGMOID, 0.2, 0.5))
            checkUnary("thresholded relu", relative: 0, reference: { $0 > 0.625 ? $0 : 0 }, kernel: unary(OCM_UNARY_THRESHOLDED_RELU, 0.625))
            checkUnary("thresholded relu, inclusive", relative: 0, reference: { $0 >= 0.625 ? $0 : 0 },
                       kernel: unary(OCM_UNARY_THRESHOLDED_RELU, 0.625, 1))
            checkUnary("scaled tanh", relative: 3e-6, absolute: 1e-7, reference: { 1.7 * tanh(0.6 * $0) }, kernel: unary(OCM_UNARY_SCALED_TANH, 1.7, 0.6))
            checkUnary("logical not", relative: 0, reference: { $0 == 0 ? 1 : 0 }, kernel: unary(OCM_UNARY_LOGICAL_NOT))
            checkOnRange("round to half", relative: 0, lo: -65_000, hi: 65_000, reference: nearestHalf, kernel: unary(OCM_UNARY_ROUND_HALF))
            checkUnary("trunc", relative: 0, lo: -10, hi: 10, reference: { $0.rounded(.towardZero) }, kernel: unary(OCM_UNARY_TRUNC))
            checkUnary("bool", relative: 0, reference: { $0 != 0 ? 1 : 0 }, kernel: unary(OCM_UNARY_BOOL))
        }

        @Test func roundToHalfAtTheEdges() {
            // 1 + 2⁻¹¹ is halfway between 1 and 1 + 2⁻¹⁰: to even (1); 65519 rounds to 65504, 65520 to ∞;
            // 2⁻²⁵ is halfway between 0 and the smallest subnormal 2⁻²⁴: to even (0).
            let x: [Float] = [1 + 0x1p-11, 1 + 0x1p-11 + 0x1p-20, 65519, 65520, -65520, 0x1p-25, 0x1.8p-25, .infinity]
            let expected: [Float] = [1, 1 + 0x1p-10, 65504, .infinity, -.infinity, 0, 0x1p-24, .infinity]
            // And exp at its edges, at every level: NaN stays NaN, ±∞ and large arguments overflow or vanish.
            forEachISA { isa in
                let e: [Float] = [.nan, .infinity, -.infinity, 89, -110, 0] + [Float](repeating: 1, count: 10)
                var z = [Float](repeating: 0, count: e.count)
                ocm_unary(OCM_UNARY_EXP, e, &z, e.count, 0, 0)
                #expect(z[0].isNaN && z[1] == .infinity && z[2] == 0 && z[3] == .infinity && z[4] == 0 && z[5] == 1, "[\(isa)]")
            }
            var y = [Float](repeating: .nan, count: x.count)
            ocm_unary(OCM_UNARY_ROUND_HALF, x, &y, x.count, 0, 0)
            #expect(y == expected)
        }

        @Test func binaryFunctions() {
            let cases: [(String, ocm_binary_op, (Double, Double) -> Double)] = [
                ("add", OCM_BINARY_ADD, { $0 + $1 }), ("sub", OCM_BINARY_SUB, { $0 - $1 }), ("mul", OCM_BINARY_MUL, { $0 * $1 }),
                ("max", OCM_BINARY_MAX, { max($0, $1) }), ("min", OCM_BINARY_MIN, { min($0, $1) }),
                ("equal", OCM_BINARY_EQUAL, { $0 == $1 ? 1 : 0 }), ("greater", OCM_BINARY_GREATER, { $0 > $1 ? 1 : 0 }),
                ("greater equal", OCM_BINARY_GREATER_EQUAL, { $0 >= $1 ? 1 : 0 }), ("less", OCM_BINARY_LESS, { $0 < $1 ? 1 : 0 }),
                ("less equal", OCM_BINARY_LESS_EQUAL, { $0 <= $1 ? 1 : 0 }), ("not equal", OCM_BINARY_NOT_EQUAL, { $0 != $1 ? 1 : 0 }),
                ("and", OCM_BINARY_AND, { $0 != 0 && $1 != 0 ? 1 : 0 }), ("xor", OCM_BINARY_XOR, { ($0 != 0) != ($1 != 0) ? 1 : 0 }),
                ("right", OCM_BINARY_RIGHT, { $1 }),
            ]
            for (name, op, reference) in cases {
                // The Double reference of float inputs, rounded to float as the kernel's result is.
                checkBinary(name, relative: 1e-7, absolute: 1e-37, reference: { Double(Float(reference($0, $1))) }) { ocm_binary(op, $0, $1, $2, $3) }
            }
            // div and pow on operands where they are finite: b in [0.5, 2), a in [0.1, 3).
            for n in lengths {
                var random = TestRandom(seed: UInt64(n) + 400)
                let a = random.floats(n, 0.1, 3), b = random.floats(n, 0.5, 2)
                forEachISAAndThreadCount { context in
                    var y = [Float](repeating: .nan, count: n)
                    ocm_binary(OCM_BINARY_DIV, a, b, &y, n)
                    expectClose(y, (0..<n).map { Double(a[$0]) / Double(b[$0]) }, relative: 1e-7, "div n=\(n) [\(context)]")
                    ocm_binary(OCM_BINARY_POW, a, b, &y, n)
                    expectClose(y, (0..<n).map { pow(Double(a[$0]), Double(b[$0])) }, relative: 1e-6, "pow n=\(n) [\(context)]")
                }
            }
        }

        /// MAX and MIN give their first input when either is NaN (Swift's `max(a, b)`).
        @Test func maximumAndMinimumWithNaN() {
            forEachISA { isa in
                let a: [Float] = [.nan, 1, .nan, 2] + [Float](repeating: 0, count: 12), b: [Float] = [1, .nan, .nan, 3] + [Float](repeating: 0, count: 12)
                var y = [Float](repeating: 0, count: 16)
                ocm_binary(OCM_BINARY_MAX, a, b, &y, 16)
                #expect(y[0].isNaN && y[1] == 1 && y[2].isNaN && y[3] == 3, "[\(isa)]")
                ocm_binary(OCM_BINARY_MIN, a, b, &y, 16)
                #expect(y[0].isNaN && y[1] == 1 && y[2].isNaN && y[3] == 2, "[\(isa)]")
            }
        }

        /// Broadcasting against a plain position-by-position loop: a bias row, a per-channel column,
        /// a scalar on either side, an operand repeated in the middle, and one long enough for threads.
        @Test(arguments: [
            ([2, 3, 4], [2, 3, 4], [4]), ([2, 3, 4], [1, 3, 1], [2, 3, 4]), ([5, 7], [], [5, 7]), ([5, 7], [5, 7], []),
            ([3, 4, 5], [3, 1, 5], [1, 4, 1]), ([8, 64, 130], [8, 64, 130], [64, 1]), ([1, 16, 64, 64], [1, 16, 64, 64], [1, 16, 1, 1]),
        ] as [([Int], [Int], [Int])])
        func broadcasting(shape: [Int], aShape: [Int], bShape: [Int]) {
            var random = TestRandom(seed: UInt64(shape.reduce(7, *)))
            let a = random.floats(aShape.reduce(1, *), -2, 2), b = random.floats(bShape.reduce(1, *), 0.5, 2)
            let rank = shape.count
            func strides(_ operand: [Int]) -> [Int] {
                let padded = [Int](repeating: 1, count: rank - operand.count) + operand
                var result = [Int](repeating: 0, count: rank), step = 1
                for d in stride(from: rank - 1, through: 0, by: -1) {
                    result[d] = padded[d] == 1 ? 0 : step
                    step *= padded[d]
                }
                return result
            }
            let (sa, sb) = (strides(aShape), strides(bShape))
            let count = shape.reduce(1, *)
            var expected = [Double](), chosen = [Float]()
            for position in 0..<count {
                var rest = position, oa = 0, ob = 0
                for d in stride(from: rank - 1, through: 0, by: -1) {
                    let i = rest % shape[d]
                    rest /= shape[d]
                    oa += i * sa[d]
                    ob += i * sb[d]
                }
                expected.append(Double(Float(Double(a[oa]) - Double(b[ob]))))
                chosen.append(a[oa] > 0 ? a[oa] : b[ob])
            }
            forEachISAAndThreadCount { context in
                var y = [Float](repeating: .nan, count: count)
                ocm_broadcast_binary(OCM_BINARY_SUB, Int32(rank), shape, sa, sb, a, b, &y)
                expectClose(y, expected, relative: 1e-7, absolute: 1e-7, "sub \(aShape) \(bShape) [\(context)]")
                // select(a > 0, a, b), the condition being a itself (non-zero is true: compare with the same test).
                var condition = [Float](repeating: 0, count: a.count)
                for i in a.indices { condition[i] = a[i] > 0 ? 1 : 0 }
                var z = [Float](repeating: .nan, count: count)
                ocm_broadcast_select(Int32(rank), shape, sa, sa, sb, condition, a, b, &z)
                expectIdentical(z, chosen, "select \(aShape) \(bShape) [\(context)]")
            }
        }

        /// PReLU per channel (channel of index i: (i / plane) mod channels) and its backward.
        @Test(arguments: [(3, 5, 2), (16, 4096, 2), (1, 7, 3), (4, 1, 5)])
        func preluPerChannel(channels: Int, plane: Int, images: Int) {
            var random = TestRandom(seed: UInt64(channels * plane))
            let n = channels * plane * images
            let x = random.floats(n, -3, 3), dy = random.floats(n, -1, 1), slopes = random.floats(channels, -0.5, 0.5)
            let slope = { (i: Int) in Double(slopes[(i / plane) % channels]) }
            let forward = (0..<n).map { x[$0] > 0 ? Double(x[$0]) : Double(Float(slope($0) * Double(x[$0]))) }
            let backward = (0..<n).map { x[$0] > 0 ? Double(dy[$0]) : Double(Float(slope($0) * Double(dy[$0]))) }
            forEachISAAndThreadCount { context in
                var y = [Float](repeating: .nan, count: n), dx = y
                ocm_prelu(x, &y, n, slopes, channels, plane)
                ocm_prelu_backward(x, dy, &dx, n, slopes, channels, plane)
                expectClose(y, forward, relative: 0, "prelu \(channels)×\(plane) [\(context)]")
                expectClose(dx, backward, relative: 0, "prelu backward \(channels)×\(plane) [\(context)]")
            }
        }
    }
}
