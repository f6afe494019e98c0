import _OpenCoreMLTestSupport
import Testing
import _OpenCoreMLKernels

extension KernelTests {
    /// Winograd F(2×2, 3×3) against the convolution's definition in Double: odd output sizes (a
    /// tile's second row or column dropped), asymmetric padding, padding wider than the kernel
    /// reaches, a 1×1 image, enough tiles to split over threads; bias and clamp; the products
    /// with the weights packed once and with them plain.
    @Suite("Winograd 3×3 convolution")
    struct WinogradTests {
        struct Geometry: Sendable, CustomTestStringConvertible {
            var inC, outC, h, w, padTop, padLeft, outH, outW: Int
            var testDescription: String { "\(inC)→\(outC) \(h)×\(w) pad \(padTop),\(padLeft) → \(outH)×\(outW)" }
        }

        static let geometries = [
            Geometry(inC: 3, outC: 5, h: 7, w: 9, padTop: 1, padLeft: 1, outH: 7, outW: 9),
            Geometry(inC: 8, outC: 4, h: 6, w: 7, padTop: 0, padLeft: 0, outH: 4, outW: 5),
            Geometry(inC: 2, outC: 3, h: 5, w: 6, padTop: 0, padLeft: 2, outH: 4, outW: 7),
            Geometry(inC: 2, outC: 2, h: 1, w: 1, padTop: 1, padLeft: 1, outH: 1, outW: 1),
            Geometry(inC: 1, outC: 2, h: 3, w: 4, padTop: 3, padLeft: 4, outH: 6, outW: 7),
            Geometry(inC: 16, outC: 24, h: 30, w: 29, padTop: 1, padLeft: 1, outH: 30, outW: 29),
        ]

        static func reference(_ x: [Float], _ w: [Float], _ bias: [Float], _ g: Geometry) -> [Double] {
            var y = [Double](repeating: 0, count: g.outC * g.outH * g.outW)
            for o in 0..<g.outC {
                for oy in 0..<g.outH {
                    for ox in 0..<g.outW {
                        var sum = Double(bias[o])
                        for c in 0..<g.inC {
                            for i in 0..<3 {
                                for j in 0..<3 {
                                    let iy = oy + i - g.padTop, ix = ox + j - g.padLeft
                                    guard iy >= 0, iy < g.h, ix >= 0, ix < g.w else { continue }
                                    sum += Double(x[(c * g.h + iy) * g.w + ix]) * Double(w[((o * g.inC + c) * 3 + i) * 3 + j])
                                }
                            }
                        }
                        y[(o * g.outH + oy) * g.outW + ox] = sum
                    }
                }
            }
            return y
        }

        /// The kernel's output for `g`, with the products on packed weights or on the plain ones.
        static func convolve(_ x: [Float], _ w: [Float], _ bias: [Float], _ g: Geometry, packed: Bool, lo: Float, hi: Float) -> [Float] {
            var u = [Float](repeating: 0, count: 16 * g.outC * g.inC)
            ocm_winograd3x3_weights(w, Int32(g.outC), Int32(g.inC), &u)
            let stride = ocm_sgemm_packed_a_floats(Int32(g.outC), Int32(g.inC))
            var packedU = [Float](repeating: 0, count: 16 * stride)
            var isa: Int32 = 0
            for p in 0..<16 {
                isa = ocm_sgemm_pack_a(false, Int32(g.outC), Int32(g.inC), Array(u[(p * g.outC * g.inC)...]), Int32(g.inC),
                                       &packedU[p * stride])
            }
            var scratch = [Float](repeating: .nan, count: ocm_winograd3x3_scratch_floats(Int32(g.inC), Int32(g.outC), Int32(g.outH), Int32(g.outW)))
            var y = [Float](repeating: .nan, count: g.outC * g.outH * g.outW)
            packedU.withUnsafeBufferPointer { packedValues in
                ocm_winograd3x3_conv(u, isa, packed ? packedValues.baseAddress : nil, x, &y, Int32(g.inC), Int32(g.outC), Int32(g.h), Int32(g.w),
                                     Int32(g.padTop), Int32(g.padLeft), Int32(g.outH), Int32(g.outW), bias, lo, hi, &scratch)
            }
            return y
        }

        @Test(arguments: geometries)
        func matchesTheDefinition(_ g: Geometry) {
            var random = TestRandom(seed: UInt64(g.inC * 1000 + g.h * 10 + g.w))
            let x = random.floats(g.inC * g.h * g.w), w = random.floats(g.outC * g.inC * 9), bias = random.floats(g.outC)
            let expected = Self.reference(x, w, bias, g)
            forEachISAAndThreadCount { context in
                for packed in [true, false] {
                    let y = Self.convolve(x, w, bias, g, packed: packed, lo: -.infinity, hi: .infinity)
                    let worst = zip(y, expected).map { abs(Double($0) - $1) }.max() ?? 0
                    #expect(worst <= 1e-5 * Double(g.inC), "\(g.testDescription) packed \(packed) [\(context)]: off by \(worst)")
                }
            }
        }

        @Test func biasThenClamp() {
            let g = Self.geometries[0]
            var random = TestRandom(seed: 9)
            let x = random.floats(g.inC * g.h * g.w), w = random.floats(g.outC * g.inC * 9), bias = random.floats(g.outC)
            let expected = Self.reference(x, w, bias, g).map { min(max($0, 0), 0.5) }
            let y = Self.convolve(x, w, bias, g, packed: true, lo: 0, hi: 0.5)
            #expect(expected.contains(0) && expected.contains(0.5), "the test needs values clamped at both ends")
            #expect(zip(y, expected).allSatisfy { abs(Double($0) - $1) <= 1e-5 })
        }
    }
}
