import _OpenCoreMLTestSupport
import Testing
import _OpenCoreMLKernels

/// A pooling window over `planes` planes of H×W.
struct PoolGeometry: CustomTestStringConvertible, Sendable {
    var planes: Int, H: Int, W: Int
    var kh: Int, kw: Int, sh: Int, sw: Int
    var pt = 0, pl = 0, pb = 0, pr = 0

    var outH: Int { (H + pt + pb - kh) / sh + 1 }
    var outW: Int { (W + pl + pr - kw) / sw + 1 }
    var inSize: Int { planes * H * W }
    var outSize: Int { planes * outH * outW }

    var testDescription: String {
        "\(planes)×\(H)×\(W) k\(kh)×\(kw) s\(sh),\(sw) pad \(pt),\(pl),\(pb),\(pr)"
    }
}

private let poolGeometries: [PoolGeometry] = [
    PoolGeometry(planes: 64, H: 26, W: 26, kh: 2, kw: 2, sh: 2, sw: 2),  // LeNet pool 1 (threads)
    PoolGeometry(planes: 3, H: 9, W: 27, kh: 2, kw: 2, sh: 2, sw: 2),  // rows of one block, odd sizes
    PoolGeometry(planes: 3, H: 7, W: 69, kh: 2, kw: 2, sh: 2, sw: 2),  // odd sizes, 34 outputs a row
    PoolGeometry(planes: 2, H: 9, W: 11, kh: 3, kw: 3, sh: 2, sw: 2, pt: 1, pl: 1, pb: 1, pr: 1),
    PoolGeometry(planes: 2, H: 6, W: 7, kh: 2, kw: 3, sh: 1, sw: 2, pt: 0, pl: 2, pb: 1, pr: 2),
    PoolGeometry(planes: 1, H: 1, W: 1, kh: 1, kw: 1, sh: 1, sw: 1),
    // Padding as wide as the window: some windows hold no input at all.
    PoolGeometry(planes: 2, H: 3, W: 4, kh: 2, kw: 2, sh: 1, sw: 1, pt: 2, pl: 2, pb: 0, pr: 1),
]

/// Max pooling by definition: first maximum in row-major window order; windows wholly in the
/// padding give (0, −1).
private func referenceMaxPool(_ g: PoolGeometry, _ x: [Float]) -> ([Float], [Int32]) {
    var y = [Float](repeating: 0, count: g.outSize), argmax = [Int32](repeating: -1, count: g.outSize)
    for p in 0..<g.planes {
        for oh in 0..<g.outH {
            for ow in 0..<g.outW {
                var best: Float = 0, index: Int32 = -1
                for i in 0..<g.kh {
                    for j in 0..<g.kw {
                        let h = oh * g.sh + i - g.pt, w = ow * g.sw + j - g.pl
                        guard h >= 0, h < g.H, w >= 0, w < g.W else { continue }
                        let v = x[(p * g.H + h) * g.W + w]
                        if index < 0 || v > best { best = v; index = Int32(h * g.W + w) }
                    }
                }
                y[(p * g.outH + oh) * g.outW + ow] = best
                argmax[(p * g.outH + oh) * g.outW + ow] = index
            }
        }
    }
    return (y, argmax)
}

/// Average pooling by definition.
private func referenceAvgPool(_ g: PoolGeometry, _ x: [Float], excludePadding: Bool) -> [Double] {
    var y = [Double](repeating: 0, count: g.outSize)
    for p in 0..<g.planes {
        for oh in 0..<g.outH {
            for ow in 0..<g.outW {
                var sum = 0.0, count = 0
                for i in 0..<g.kh {
                    for j in 0..<g.kw {
                        let h = oh * g.sh + i - g.pt, w = ow * g.sw + j - g.pl
                        guard h >= 0, h < g.H, w >= 0, w < g.W else { continue }
                        sum += Double(x[(p * g.H + h) * g.W + w])
                        count += 1
                    }
                }
                y[(p * g.outH + oh) * g.outW + ow] = sum / Double(excludePadding ? max(count, 1) : g.kh * g.kw)
            }
        }
    }
    return y
}

private func maxPool(_ g: PoolGeometry, _ x: [Float]) -> ([Float], [Int32]) {
    var y = [Float](repeating: .nan, count: g.outSize)
    var argmax = [Int32](repeating: -7, count: g.outSize)
    ocm_maxpool2d(x, &y, &argmax, Int32(g.planes), Int32(g.H), Int32(g.W), Int32(g.kh), Int32(g.kw),
                  Int32(g.sh), Int32(g.sw), Int32(g.pt), Int32(g.pl), Int32(g.outH), Int32(g.outW))
    return (y, argmax)
}

private func avgPool(_ g: PoolGeometry, _ x: [Float], excludePadding: Bool) -> [Float] {
    var y = [Float](repeating: .nan, count: g.outSize)
    ocm_avgpool2d(x, &y, Int32(g.planes), Int32(g.H), Int32(g.W), Int32(g.kh), Int32(g.kw),
                  Int32(g.sh), Int32(g.sw), Int32(g.pt), Int32(g.pl), Int32(g.outH), Int32(g.outW),
                  excludePadding)
    return y
}

private func avgPoolBackward(_ g: PoolGeometry, _ dy: [Float], into dx: inout [Float],
                             excludePadding: Bool, accumulate: Bool) {
    ocm_avgpool2d_backward(dy, &dx, Int32(g.planes), Int32(g.H), Int32(g.W), Int32(g.kh),
                           Int32(g.kw), Int32(g.sh), Int32(g.sw), Int32(g.pt), Int32(g.pl),
                           Int32(g.outH), Int32(g.outW), excludePadding, accumulate)
}

extension KernelTests {
    @Suite("Pooling")
    struct Pooling {
        @Test(arguments: poolGeometries)
        func maxPoolMatchesDefinition(_ g: PoolGeometry) {
            var random = TestRandom(seed: UInt64(g.inSize))
            let x = random.floats(g.inSize)
            // Few distinct values, so ties are common and their order is checked too.
            let ties = x.map { ($0 * 3).rounded() }
            for (name, input) in [("random", x), ("ties", ties)] {
                let (expectedY, expectedArgmax) = referenceMaxPool(g, input)
                forEachISAAndThreadCount { context in
                    let (y, argmax) = maxPool(g, input)
                    expectIdentical(y, expectedY, "\(g.testDescription) \(name) y [\(context)]")
                    #expect(argmax == expectedArgmax, "\(g.testDescription) \(name) argmax [\(context)]")
                }
            }
        }

        /// Without indices (inference) other windows than 2×2 stride 2 go row by row: the same values.
        @Test(arguments: poolGeometries)
        func maxPoolWithoutArgmax(_ g: PoolGeometry) {
            var random = TestRandom(seed: 3)
            let x = random.floats(g.inSize)
            let (expected, _) = referenceMaxPool(g, x)
            forEachISAAndThreadCount { context in
                var y = [Float](repeating: .nan, count: g.outSize)
                ocm_maxpool2d(x, &y, nil, Int32(g.planes), Int32(g.H), Int32(g.W), Int32(g.kh), Int32(g.kw), Int32(g.sh), Int32(g.sw),
                              Int32(g.pt), Int32(g.pl), Int32(g.outH), Int32(g.outW))
                expectIdentical(y, expected, "\(g.testDescription) no argmax [\(context)]")
            }
        }

        /// Backward scatters dy through argmax: against a naive scatter, and against finite
        /// differences of Σ dy·maxpool(x) (inputs distinct, so the max is differentiable).
        @Test(arguments: poolGeometries)
        func maxPoolBackward(_ g: PoolGeometry) {
            var random = TestRandom(seed: UInt64(g.inSize + 2))
            // A permutation of distinct values keeps every window's maximum unique.
            var x = (0..<g.inSize).map { Float($0) * 0.01 }
            for i in stride(from: x.count - 1, to: 0, by: -1) { x.swapAt(i, random.int(0..<(i + 1))) }
            let dy = random.floats(g.outSize)
            let (_, argmax) = maxPool(g, x)
            var naive = [Double](repeating: 0, count: g.inSize)
            for p in 0..<g.planes {
                for o in 0..<(g.outH * g.outW) where argmax[p * g.outH * g.outW + o] >= 0 {
                    naive[p * g.H * g.W + Int(argmax[p * g.outH * g.outW + o])] += Double(dy[p * g.outH * g.outW + o])
                }
            }
            let start = random.floats(g.inSize)
            forEachISAAndThreadCount { context in
                var dx = [Float](repeating: .nan, count: g.inSize)
                ocm_maxpool2d_backward(dy, argmax, &dx, Int32(g.planes), Int32(g.H), Int32(g.W),
                                       Int32(g.outH), Int32(g.outW), false)
                expectClose(dx, naive, relative: 1e-6, absolute: 1e-6, "\(g.testDescription) [\(context)]")
                var accumulated = start
                ocm_maxpool2d_backward(dy, argmax, &accumulated, Int32(g.planes), Int32(g.H),
                                       Int32(g.W), Int32(g.outH), Int32(g.outW), true)
                expectClose(accumulated, zip(start, naive).map { Double($0) + $1 }, relative: 1e-6,
                            absolute: 1e-6, "accumulate [\(context)]")
            }
            // Finite differences on a few inputs (step below half the gap between values).
            var dx = [Float](repeating: 0, count: g.inSize)
            ocm_maxpool2d_backward(dy, argmax, &dx, Int32(g.planes), Int32(g.H), Int32(g.W),
                                   Int32(g.outH), Int32(g.outW), false)
            let h: Float = 0.002
            for _ in 0..<min(8, g.inSize) {
                let i = random.int(0..<g.inSize)
                var plus = x, minus = x
                plus[i] += h
                minus[i] -= h
                let numeric = (dot(maxPool(g, plus).0, dy) - dot(maxPool(g, minus).0, dy))
                    / (Double(plus[i]) - Double(minus[i]))
                #expect(abs(numeric - Double(dx[i])) <= 1e-2 * (abs(numeric) + 1), "d/dx[\(i)]: \(numeric) vs \(dx[i])")
            }
        }

        /// The 2×2 stride-2 backward overwrites every input: the gated dy at each winner, 0
        /// elsewhere (rows and columns no window covers included).
        @Test(arguments: [
            poolGeometries[0], poolGeometries[2], PoolGeometry(planes: 2, H: 5, W: 35, kh: 2, kw: 2, sh: 2, sw: 2),
            PoolGeometry(planes: 3, H: 9, W: 27, kh: 2, kw: 2, sh: 2, sw: 2), PoolGeometry(planes: 2, H: 12, W: 12, kh: 2, kw: 2, sh: 2, sw: 2),
        ])
        func maxPool2x2Backward(_ g: PoolGeometry) {
            var random = TestRandom(seed: UInt64(g.inSize + 9))
            let x = random.floats(g.inSize).map { ($0 * 3).rounded() }  // ties too
            let dy = random.floats(g.outSize)
            let gate = random.floats(g.outSize)  // about half of them <= 0
            var (_, argmax) = referenceMaxPool(g, x)
            // Some windows without a winner (−1): they pass nothing.
            for index in stride(from: 3, to: argmax.count, by: 7) { argmax[index] = -1 }
            for useGate in [false, true] {
                var naive = [Double](repeating: 0, count: g.inSize)
                for p in 0..<g.planes {
                    for o in 0..<(g.outH * g.outW) {
                        let index = p * g.outH * g.outW + o
                        if argmax[index] < 0 || (useGate && gate[index] <= 0) { continue }
                        naive[p * g.H * g.W + Int(argmax[index])] = Double(dy[index])
                    }
                }
                forEachISAAndThreadCount { context in
                    var dx = [Float](repeating: .nan, count: g.inSize)
                    ocm_maxpool2x2_backward(dy, useGate ? gate : nil, argmax, &dx, Int32(g.planes), Int32(g.H), Int32(g.W),
                                            Int32(g.outH), Int32(g.outW))
                    expectClose(dx, naive, relative: 0, absolute: 0, "\(g.testDescription) gate \(useGate) [\(context)]")
                }
            }
        }

        @Test(arguments: poolGeometries)
        func avgPoolMatchesDefinition(_ g: PoolGeometry) {
            var random = TestRandom(seed: UInt64(g.inSize + 3))
            let x = random.floats(g.inSize)
            for exclude in [false, true] {
                let expected = referenceAvgPool(g, x, excludePadding: exclude)
                forEachISAAndThreadCount { context in
                    expectClose(avgPool(g, x, excludePadding: exclude), expected, relative: 1e-5,
                                absolute: 1e-6, "\(g.testDescription) exclude=\(exclude) [\(context)]")
                }
            }
        }

        /// Average-pooling backward is the forward's adjoint: ⟨avg(x), dy⟩ = ⟨x, avg'(dy)⟩.
        @Test(arguments: poolGeometries)
        func avgPoolBackwardIsTheAdjoint(_ g: PoolGeometry) {
            var random = TestRandom(seed: UInt64(g.inSize + 4))
            let x = random.floats(g.inSize), dy = random.floats(g.outSize)
            for exclude in [false, true] {
                forEachISAAndThreadCount { context in
                    var dx = [Float](repeating: .nan, count: g.inSize)
                    avgPoolBackward(g, dy, into: &dx, excludePadding: exclude, accumulate: false)
                    let lhs = dot(avgPool(g, x, excludePadding: exclude), dy), rhs = dot(x, dx)
                    #expect(abs(lhs - rhs) <= 1e-5 * (abs(lhs) + 1),
                            "\(g.testDescription) exclude=\(exclude) [\(context)]: \(lhs) vs \(rhs)")
                    var twice = dx
                    avgPoolBackward(g, dy, into: &twice, excludePadding: exclude, accumulate: true)
                    expectClose(twice, dx.map { 2 * Double($0) }, relative: 1e-6, absolute: 1e-6, "accumulate")
                }
            }
        }

        @Test func globalPooling() {
            let (planes, HW) = (37, 29)
            var random = TestRandom(seed: 8)
            let x = random.floats(planes * HW)
            var expectedMax = [Float](), expectedArgmax = [Int32](), expectedMean = [Double]()
            for p in 0..<planes {
                let plane = x[p * HW..<(p + 1) * HW]
                let m = plane.max()!
                expectedMax.append(m)
                expectedArgmax.append(Int32(plane.firstIndex(of: m)! - p * HW))
                expectedMean.append(plane.reduce(0.0) { $0 + Double($1) } / Double(HW))
            }
            let dy = random.floats(planes)
            forEachISAAndThreadCount { context in
                var y = [Float](repeating: .nan, count: planes), argmax = [Int32](repeating: -7, count: planes)
                ocm_global_maxpool(x, &y, &argmax, Int32(planes), Int32(HW))
                expectIdentical(y, expectedMax, "global max [\(context)]")
                #expect(argmax == expectedArgmax, "global argmax [\(context)]")
                var mean = [Float](repeating: .nan, count: planes)
                ocm_global_avgpool(x, &mean, Int32(planes), Int32(HW))
                expectClose(mean, expectedMean, relative: 1e-5, absolute: 1e-6, "global mean [\(context)]")
                var dx = [Float](repeating: 1, count: planes * HW)
                ocm_global_avgpool_backward(dy, &dx, Int32(planes), Int32(HW), true)
                let expectedDx = (0..<(planes * HW)).map { 1 + Double(dy[$0 / HW]) / Double(HW) }
                expectClose(dx, expectedDx, relative: 1e-6, "global mean backward [\(context)]")
                ocm_global_avgpool_backward(dy, &dx, Int32(planes), Int32(HW), false)
                expectClose(dx, expectedDx.map { $0 - 1 }, relative: 1e-6, absolute: 1e-9,
                            "global mean backward, overwrite [\(context)]")
            }
        }
    }
}
