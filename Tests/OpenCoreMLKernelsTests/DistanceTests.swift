import _OpenCoreMLTestSupport
import Testing
import _OpenCoreMLKernels

extension KernelTests {
    @Suite("Distances and k smallest")
    struct DistanceTests {
        /// Σ (q − s)² in Double.
        static func reference(_ q: ArraySlice<Float>, _ s: ArraySlice<Float>) -> Double {
            zip(q, s).reduce(0) { $0 + Double($1.0 - $1.1) * Double($1.0 - $1.1) }
        }

        @Test(arguments: [(1, 1, 1), (1, 37, 17), (5, 70, 33), (33, 129, 8), (4, 64, 1000), (7, 3, 15)])
        func squaredDistancesMatchDoubleReferenceOnEveryISA(shape: (Int, Int, Int)) {
            let (queries, samples, dimensions) = shape
            var random = TestRandom(seed: UInt64(queries * 1000 + samples * 10 + dimensions))
            // Padded rows (leading dimension > D) to check the strides.
            let ldq = dimensions + 3, lds = dimensions + 1, ldo = samples + 2
            let q = random.floats(queries * ldq), s = random.floats(samples * lds)
            forEachISAAndThreadCount { label in
                var out = [Float](repeating: -1, count: queries * ldo)
                ocm_squared_distances(q, Int32(queries), Int32(ldq), s, Int32(samples), Int32(lds), Int32(dimensions), &out, Int32(ldo))
                for i in 0..<queries {
                    for j in 0..<samples {
                        let expected = Self.reference(q[(i * ldq)..<(i * ldq + dimensions)], s[(j * lds)..<(j * lds + dimensions)])
                        #expect(abs(Double(out[i * ldo + j]) - expected) <= 1e-5 * max(1, expected), "\(label) [\(i)][\(j)]")
                    }
                    // Untouched padding.
                    for j in samples..<ldo { #expect(out[i * ldo + j] == -1, "\(label) padding") }
                }
            }
        }

        @Test func equalRowsAreAtDistanceExactlyZero() {
            var random = TestRandom(seed: 5)
            let row = random.floats(1001, -100, 100)
            forEachISA { label in
                var out: [Float] = [1]
                ocm_squared_distances(row, 1, 1001, row, 1, 1001, 1001, &out, 1)
                #expect(out[0] == 0, "\(label)")
            }
        }

        @Test(arguments: [0, 1, 3, 10, 50])
        func kSmallestIsTheSortedPrefixWithTiesByIndex(k: Int) {
            var random = TestRandom(seed: UInt64(k))
            // Few distinct values, so ties are common.
            let values = (0..<40).map { _ in Float(random.int(0..<8)) }
            var indices = [Int32](repeating: -1, count: max(k, 1))
            var selected = [Float](repeating: -1, count: max(k, 1))
            let found = Int(ocm_k_smallest(values, 40, Int32(k), 100, &indices, &selected))
            let expected = values.enumerated().sorted { ($0.element, $0.offset) < ($1.element, $1.offset) }.prefix(k)
            #expect(found == min(k, 40))
            #expect(Array(indices[0..<found]) == expected.map { Int32($0.offset + 100) })
            #expect(Array(selected[0..<found]) == expected.map(\.element))
        }
    }
}
