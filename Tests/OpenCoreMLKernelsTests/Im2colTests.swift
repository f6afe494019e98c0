import _OpenCoreMLTestSupport
import Testing
import _OpenCoreMLKernels

/// A convolution window over a C×H×W image.
struct ConvGeometry: CustomTestStringConvertible, Sendable {
    var C: Int, H: Int, W: Int
    var kh: Int, kw: Int
    var sh = 1, sw = 1, dh = 1, dw = 1
    var pt = 0, pl = 0, pb = 0, pr = 0

    var outH: Int { (H + pt + pb - dh * (kh - 1) - 1) / sh + 1 }
    var outW: Int { (W + pl + pr - dw * (kw - 1) - 1) / sw + 1 }
    var rows: Int { C * kh * kw }
    var spatial: Int { outH * outW }
    var imageSize: Int { C * H * W }

    var testDescription: String {
        "C\(C) \(H)×\(W) k\(kh)×\(kw) s\(sh),\(sw) d\(dh),\(dw) pad \(pt),\(pl),\(pb),\(pr)"
    }
}

private let geometries: [ConvGeometry] = [
    ConvGeometry(C: 1, H: 28, W: 28, kh: 3, kw: 3),  // LeNet conv 1
    ConvGeometry(C: 3, H: 13, W: 13, kh: 2, kw: 2),  // LeNet conv 2 (fewer channels)
    ConvGeometry(C: 2, H: 7, W: 9, kh: 3, kw: 2, sh: 2, sw: 3, pt: 1, pl: 2, pb: 2, pr: 1),
    ConvGeometry(C: 2, H: 8, W: 7, kh: 3, kw: 3, dh: 2, dw: 3, pt: 2, pl: 3, pb: 2, pr: 3),
    ConvGeometry(C: 1, H: 2, W: 3, kh: 5, kw: 4, pt: 3, pl: 2, pb: 3, pr: 2),  // window > image
    ConvGeometry(C: 4, H: 5, W: 5, kh: 1, kw: 1),  // 1×1
    ConvGeometry(C: 1, H: 1, W: 1, kh: 1, kw: 1),
    // Wide rows: every block size of the row copies (16, 8, 4, 1).
    ConvGeometry(C: 2, H: 5, W: 41, kh: 3, kw: 3, pt: 1, pl: 1, pb: 1, pr: 1),
    ConvGeometry(C: 2, H: 4, W: 29, kh: 2, kw: 2),
    // Enough columns to split one image's channels over threads, in uneven shares.
    ConvGeometry(C: 13, H: 20, W: 20, kh: 3, kw: 3, sh: 1, sw: 1, pt: 1, pl: 1, pb: 1, pr: 1),
]

/// im2col by definition.
private func referenceIm2col(_ g: ConvGeometry, _ image: [Float]) -> [Float] {
    var columns = [Float](repeating: 0, count: g.rows * g.spatial)
    for c in 0..<g.C {
        for i in 0..<g.kh {
            for j in 0..<g.kw {
                let row = (c * g.kh + i) * g.kw + j
                for oh in 0..<g.outH {
                    for ow in 0..<g.outW {
                        let h = oh * g.sh + i * g.dh - g.pt, w = ow * g.sw + j * g.dw - g.pl
                        if h >= 0, h < g.H, w >= 0, w < g.W {
                            columns[row * g.spatial + oh * g.outW + ow] = image[(c * g.H + h) * g.W + w]
                        }
                    }
                }
            }
        }
    }
    return columns
}

private func im2col(_ g: ConvGeometry, _ image: [Float]) -> [Float] {
    var columns = [Float](repeating: .nan, count: g.rows * g.spatial)
    ocm_im2col(image, Int32(g.C), Int32(g.H), Int32(g.W), Int32(g.kh), Int32(g.kw), Int32(g.sh),
               Int32(g.sw), Int32(g.dh), Int32(g.dw), Int32(g.pt), Int32(g.pl), Int32(g.outH),
               Int32(g.outW), &columns)
    return columns
}

private func col2im(_ g: ConvGeometry, _ columns: [Float], into image: inout [Float]) {
    ocm_col2im(columns, Int32(g.C), Int32(g.H), Int32(g.W), Int32(g.kh), Int32(g.kw), Int32(g.sh),
               Int32(g.sw), Int32(g.dh), Int32(g.dw), Int32(g.pt), Int32(g.pl), Int32(g.outH),
               Int32(g.outW), &image)
}

extension KernelTests {
    @Suite("im2col")
    struct Im2col {
        @Test(arguments: geometries)
        func im2colMatchesDefinition(_ g: ConvGeometry) {
            var random = TestRandom(seed: UInt64(g.imageSize))
            let image = random.floats(g.imageSize)
            let expected = referenceIm2col(g, image)
            forEachISAAndThreadCount { context in
                expectIdentical(im2col(g, image), expected, "\(g.testDescription) [\(context)]")
            }
        }

        /// A band of output rows unfolds to the same columns as those rows of the whole unfolding:
        /// bands of one row, the first and last rows alone, and the rest.
        @Test(arguments: geometries)
        func bandsOfRowsMatchTheWholeUnfolding(_ g: ConvGeometry) {
            var random = TestRandom(seed: UInt64(g.imageSize + 7))
            let image = random.floats(g.imageSize)
            let whole = referenceIm2col(g, image)
            var bands = [(0, min(1, g.outH)), (min(1, g.outH), max(min(1, g.outH), g.outH - 1)), (max(min(1, g.outH), g.outH - 1), g.outH)]
            bands += (0..<g.outH).map { ($0, $0 + 1) }
            forEachISAAndThreadCount { context in
                for (begin, end) in bands where begin < end {
                    let width = (end - begin) * g.outW
                    var columns = [Float](repeating: .nan, count: g.rows * width)
                    ocm_im2col_rows(image, Int32(g.C), Int32(g.H), Int32(g.W), Int32(g.kh), Int32(g.kw), Int32(g.sh), Int32(g.sw), Int32(g.dh),
                                    Int32(g.dw), Int32(g.pt), Int32(g.pl), Int32(g.outH), Int32(g.outW), Int32(begin), Int32(end), &columns)
                    let expected = (0..<g.rows).flatMap { row in whole[(row * g.spatial + begin * g.outW)..<(row * g.spatial + end * g.outW)] }
                    expectIdentical(columns, expected, "\(g.testDescription) rows \(begin)..<\(end) [\(context)]")
                }
            }
        }

        /// col2im is im2col's adjoint: ⟨im2col(x), y⟩ = ⟨x, col2im(y)⟩.
        @Test(arguments: geometries)
        func col2imIsTheAdjoint(_ g: ConvGeometry) {
            var random = TestRandom(seed: UInt64(g.imageSize + 1))
            let x = random.floats(g.imageSize)
            let y = random.floats(g.rows * g.spatial)
            forEachISA { isa in
                var back = [Float](repeating: 0, count: g.imageSize)
                col2im(g, y, into: &back)
                let lhs = dot(im2col(g, x), y), rhs = dot(x, back)
                #expect(abs(lhs - rhs) <= 1e-5 * (abs(lhs) + 1), "\(g.testDescription) [\(isa)]: \(lhs) vs \(rhs)")
            }
        }

        @Test func col2imAccumulates() {
            let g = geometries[2]
            var random = TestRandom(seed: 5)
            let y = random.floats(g.rows * g.spatial)
            let start = random.floats(g.imageSize)
            var fromZero = [Float](repeating: 0, count: g.imageSize)
            col2im(g, y, into: &fromZero)
            forEachISA { isa in
                var accumulated = start
                col2im(g, y, into: &accumulated)
                expectClose(accumulated, zip(start, fromZero).map { Double($0) + Double($1) },
                            relative: 1e-6, absolute: 1e-6, "col2im adds into the image [\(isa)]")
            }
        }

        /// The batch versions lay images side by side along the columns and match the
        /// one-image versions, with 1 and 2 threads.
        @Test(arguments: [geometries[0], geometries[2], geometries[3], geometries[7]])
        func batchMatchesSingleImages(_ g: ConvGeometry) {
            let N = 37
            var random = TestRandom(seed: 99)
            let images = random.floats(N * g.imageSize)
            let grads = random.floats(g.rows * N * g.spatial)
            var expectedColumns = [Float](repeating: 0, count: g.rows * N * g.spatial)
            var expectedImages = [Float](repeating: 0, count: N * g.imageSize)
            for n in 0..<N {
                let one = im2col(g, Array(images[n * g.imageSize..<(n + 1) * g.imageSize]))
                var slice = [Float](repeating: 0, count: g.rows * g.spatial)
                for r in 0..<g.rows {
                    for s in 0..<g.spatial {
                        expectedColumns[r * N * g.spatial + n * g.spatial + s] = one[r * g.spatial + s]
                        slice[r * g.spatial + s] = grads[r * N * g.spatial + n * g.spatial + s]
                    }
                }
                var image = [Float](repeating: 0, count: g.imageSize)
                col2im(g, slice, into: &image)
                expectedImages.replaceSubrange(n * g.imageSize..<(n + 1) * g.imageSize, with: image)
            }
            forEachISAAndThreadCount { context in
                var columns = [Float](repeating: .nan, count: g.rows * N * g.spatial)
                ocm_im2col_batch(images, Int32(N), Int32(g.C), Int32(g.H), Int32(g.W), Int32(g.kh),
                                 Int32(g.kw), Int32(g.sh), Int32(g.sw), Int32(g.dh), Int32(g.dw),
                                 Int32(g.pt), Int32(g.pl), Int32(g.outH), Int32(g.outW), &columns)
                expectIdentical(columns, expectedColumns, "im2col batch [\(context)]")
                var back = [Float](repeating: 0, count: N * g.imageSize)
                ocm_col2im_batch(grads, Int32(N), Int32(g.C), Int32(g.H), Int32(g.W), Int32(g.kh),
                                 Int32(g.kw), Int32(g.sh), Int32(g.sw), Int32(g.dh), Int32(g.dw),
                                 Int32(g.pt), Int32(g.pl), Int32(g.outH), Int32(g.outW), &back)
                expectIdentical(back, expectedImages, "col2im batch [\(context)]")
            }
        }
    }
}
