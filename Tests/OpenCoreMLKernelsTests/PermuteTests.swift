import _OpenCoreMLTestSupport
import Testing
import _OpenCoreMLKernels

/// x with its axes reordered by the definition: output element at index i (row-major over the
/// permuted shape) is the input element whose index along axis perm[d] is i[d].
private func referencePermute(_ x: [Float], shape: [Int], perm: [Int]) -> [Float] {
    let rank = shape.count
    let outShape = perm.map { shape[$0] }
    var inStrides = [Int](repeating: 1, count: rank)
    for d in stride(from: rank - 2, through: 0, by: -1) { inStrides[d] = inStrides[d + 1] * shape[d + 1] }
    return (0..<x.count).map { position in
        var rest = position, offset = 0
        for d in stride(from: rank - 1, through: 0, by: -1) {
            offset += rest % outShape[d] * inStrides[perm[d]]
            rest /= outShape[d]
        }
        return x[offset]
    }
}

extension KernelTests {
    @Suite("Permute")
    struct Permute {
        /// Last axis kept (runs), last axis moved (tiles, sizes not multiples of the tile), size-1
        /// axes anywhere, axes that merge, ranks 1 to 8, the identity, and an attention head split.
        @Test(arguments: [
            ([7], [0]), ([5, 3], [1, 0]), ([33, 17], [1, 0]), ([1, 40, 1], [2, 0, 1]), ([2, 3, 4], [0, 1, 2]),
            ([3, 5, 7], [2, 1, 0]), ([3, 5, 7], [1, 0, 2]), ([2, 3, 5, 7], [0, 2, 3, 1]), ([4, 1, 6, 19], [3, 2, 1, 0]),
            ([1, 16, 3, 4, 8], [2, 0, 3, 1, 4]), ([2, 3, 2, 3, 2, 3], [5, 3, 1, 4, 2, 0]), ([2, 1, 3, 1, 2, 5], [1, 3, 0, 2, 5, 4]),
            ([2, 2, 2, 2, 2, 2, 2, 3], [7, 6, 5, 4, 3, 2, 1, 0]), ([1, 128, 3, 4, 64], [2, 0, 3, 1, 4]), ([4, 130, 64], [0, 2, 1]),
        ])
        func matchesTheDefinition(shape: [Int], perm: [Int]) {
            var random = TestRandom(seed: UInt64(shape.reduce(1, *)))
            var x = random.floats(shape.reduce(1, *))
            x[x.count / 2] = .nan
            let expected = referencePermute(x, shape: shape, perm: perm)
            forEachISAAndThreadCount { context in
                var y = [Float](repeating: 12345, count: x.count)
                ocm_permute(x, &y, Int32(shape.count), shape.map { Int32($0) }, perm.map { Int32($0) })
                expectIdentical(y, expected, "\(shape) by \(perm) [\(context)]")
            }
        }

        @Test func emptyTensorsWriteNothing() {
            var y: [Float] = [1, 2]
            ocm_permute(nil, &y, 3, [2, 0, 3], [2, 1, 0])
            #expect(y == [1, 2])
        }
    }
}
