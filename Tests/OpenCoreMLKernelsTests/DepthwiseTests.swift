import _OpenCoreMLTestSupport
import Testing
import _OpenCoreMLKernels

extension KernelTests {
    @Suite("Depthwise convolution")
    struct DepthwiseTests {
        struct Geometry: Sendable, CustomTestStringConvertible {
            var h, w, kh, kw, sh, sw, dh, dw, padTop, padLeft, outH, outW: Int
            var testDescription: String { "\(h)×\(w) k\(kh)×\(kw) s\(sh)×\(sw) d\(dh)×\(dw) pad \(padTop),\(padLeft) → \(outH)×\(outW)" }
        }

        /// Odd sizes, strides 1 and 2, dilation, asymmetric padding, outputs that reach past the
        /// input (padding on the right / bottom) and a 1-column plane.
        static let geometries = [
            Geometry(h: 13, w: 11, kh: 3, kw: 3, sh: 1, sw: 1, dh: 1, dw: 1, padTop: 1, padLeft: 1, outH: 13, outW: 11),
            Geometry(h: 13, w: 11, kh: 3, kw: 3, sh: 2, sw: 2, dh: 1, dw: 1, padTop: 0, padLeft: 1, outH: 7, outW: 6),
            Geometry(h: 9, w: 37, kh: 5, kw: 5, sh: 2, sw: 2, dh: 1, dw: 1, padTop: 2, padLeft: 2, outH: 5, outW: 19),
            Geometry(h: 7, w: 7, kh: 5, kw: 3, sh: 1, sw: 2, dh: 1, dw: 1, padTop: 2, padLeft: 0, outH: 7, outW: 3),
            Geometry(h: 10, w: 17, kh: 3, kw: 3, sh: 1, sw: 1, dh: 2, dw: 3, padTop: 1, padLeft: 3, outH: 8, outW: 17),
            Geometry(h: 5, w: 1, kh: 3, kw: 1, sh: 1, sw: 1, dh: 1, dw: 1, padTop: 1, padLeft: 0, outH: 5, outW: 1),
            // EfficientNet's sizes: runs of 64 outputs and a tail; stride 2 over four phases; 7×7.
            Geometry(h: 29, w: 27, kh: 3, kw: 3, sh: 1, sw: 1, dh: 1, dw: 1, padTop: 1, padLeft: 1, outH: 29, outW: 27),
            Geometry(h: 28, w: 28, kh: 5, kw: 5, sh: 2, sw: 2, dh: 1, dw: 1, padTop: 1, padLeft: 1, outH: 14, outW: 14),
            Geometry(h: 7, w: 7, kh: 5, kw: 5, sh: 1, sw: 1, dh: 1, dw: 1, padTop: 2, padLeft: 2, outH: 7, outW: 7),
            // Stride 2 over rows wide enough for the vector split into even and odd columns.
            Geometry(h: 60, w: 70, kh: 3, kw: 3, sh: 2, sw: 2, dh: 1, dw: 1, padTop: 0, padLeft: 0, outH: 30, outW: 35),
            Geometry(h: 61, w: 71, kh: 3, kw: 3, sh: 2, sw: 2, dh: 1, dw: 1, padTop: 1, padLeft: 1, outH: 31, outW: 36),
            // The register-blocked rows: whole 16-column vectors, two rows (a block of 2), and
            // stride 2 with 5×5 taps over 2 rows of 17 columns (a vector and a 1-column tail).
            Geometry(h: 2, w: 32, kh: 3, kw: 3, sh: 1, sw: 1, dh: 1, dw: 1, padTop: 1, padLeft: 1, outH: 2, outW: 32),
            Geometry(h: 3, w: 33, kh: 5, kw: 5, sh: 2, sw: 2, dh: 1, dw: 1, padTop: 2, padLeft: 2, outH: 2, outW: 17),
            // 5×5 at stride 1 on the blocked path (blocks of 4 rows, then 2), exactly 12 wide (4 rows,
            // then 1), and top padding unlike the left one.
            Geometry(h: 14, w: 14, kh: 5, kw: 5, sh: 1, sw: 1, dh: 1, dw: 1, padTop: 2, padLeft: 2, outH: 14, outW: 14),
            Geometry(h: 13, w: 12, kh: 5, kw: 5, sh: 1, sw: 1, dh: 1, dw: 1, padTop: 2, padLeft: 2, outH: 13, outW: 12),
            Geometry(h: 9, w: 20, kh: 3, kw: 3, sh: 1, sw: 1, dh: 1, dw: 1, padTop: 0, padLeft: 2, outH: 7, outW: 20),
            // Too large to copy (the row-by-row path), and a kernel of more taps than the copy path takes.
            Geometry(h: 131, w: 129, kh: 3, kw: 3, sh: 1, sw: 1, dh: 1, dw: 1, padTop: 1, padLeft: 1, outH: 131, outW: 129),
            Geometry(h: 12, w: 12, kh: 9, kw: 9, sh: 1, sw: 1, dh: 1, dw: 1, padTop: 4, padLeft: 4, outH: 12, outW: 12),
        ]

        /// The convolution of every plane, in Double, straight from the definition.
        static func reference(_ x: [Float], _ w: [Float], _ bias: [Float], planes: Int, channels: Int, _ g: Geometry) -> [Double] {
            var y = [Double](repeating: 0, count: planes * g.outH * g.outW)
            for p in 0..<planes {
                let c = p % channels
                for oy in 0..<g.outH {
                    for ox in 0..<g.outW {
                        var sum = Double(bias[c])
                        for ky in 0..<g.kh {
                            for kx in 0..<g.kw {
                                let iy = oy * g.sh - g.padTop + ky * g.dh, ix = ox * g.sw - g.padLeft + kx * g.dw
                                guard iy >= 0, iy < g.h, ix >= 0, ix < g.w else { continue }
                                sum += Double(w[(c * g.kh + ky) * g.kw + kx]) * Double(x[(p * g.h + iy) * g.w + ix])
                            }
                        }
                        y[(p * g.outH + oy) * g.outW + ox] = sum
                    }
                }
            }
            return y
        }

        @Test(arguments: geometries)
        func matchesTheDefinitionOnEveryISA(_ g: Geometry) {
            let (channels, planes) = (5, 15)
            var random = TestRandom(seed: UInt64(g.h * 100 + g.w))
            let x = random.floats(planes * g.h * g.w), w = random.floats(channels * g.kh * g.kw), bias = random.floats(channels)
            let expected = Self.reference(x, w, bias, planes: planes, channels: channels, g)
            // No clamp, a clamp whose bounds both fall inside the outputs' range (a fused clip), a
            // fused ReLU, a fused ReLU6 (all as clamps), and a fused hardswish (on each finished plane).
            let hardswish: (Double) -> Double = { v in
                let t = v > -0.5 ? v : 0
                return t * min(max(0.75 * t + 0.25, 0), 1)
            }
            let activations: [(ocm_gemm_epilogue, (Double) -> Double)] = [
                (-Float.infinity, Float.infinity), (-0.3, 0.4), (0, .infinity), (0, 6),
            ].map { (lo, hi) in
                (ocm_gemm_epilogue(row_bias: nil, activation: OCM_EPILOGUE_CLAMP, lo: lo, hi: hi, col_bias: nil, alpha: 0, beta: 0),
                 { min(max($0, Double(lo)), Double(hi)) })
            } + [(ocm_gemm_epilogue(row_bias: nil, activation: OCM_EPILOGUE_HARDSWISH, lo: -0.5, hi: 0, col_bias: nil, alpha: 0.75, beta: 0.25), hardswish)]
            forEachISAAndThreadCount { label in
                for withBias in [true, false] {
                    for (activation, reference) in activations {
                        var y = [Float](repeating: .nan, count: planes * g.outH * g.outW)
                        bias.withUnsafeBufferPointer { b in
                            var epilogue = activation
                            epilogue.row_bias = withBias ? b.baseAddress : nil
                            ocm_depthwise_conv2d(x, &y, w, Int32(planes), Int32(channels), Int32(g.h), Int32(g.w), Int32(g.outH), Int32(g.outW),
                                                 Int32(g.kh), Int32(g.kw), Int32(g.sh), Int32(g.sw), Int32(g.dh), Int32(g.dw),
                                                 Int32(g.padTop), Int32(g.padLeft), epilogue)
                        }
                        let sums = withBias ? expected : expected.enumerated().map { $1 - Double(bias[($0 / (g.outH * g.outW)) % channels]) }
                        let want = sums.map(reference)
                        expectClose(y, want, relative: 1e-5, absolute: 1e-5,
                                    "\(label), bias \(withBias), activation \(activation.activation.rawValue) \(activation.lo)…\(activation.hi)")
                    }
                }
            }
        }
    }
}
