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

        /// The exact scan's answer: every distance, then the k smallest by (distance, index).
        static func exactNeighbours(_ q: [Float], _ queries: Int, _ s: [Float], _ samples: Int, _ dimensions: Int, k: Int)
            -> (indices: [Int32], distances: [Float]) {
            var all = [Float](repeating: 0, count: queries * samples)
            ocm_squared_distances(q, Int32(queries), Int32(dimensions), s, Int32(samples), Int32(dimensions), Int32(dimensions), &all, Int32(samples))
            var indices = [Int32](repeating: 0, count: queries * k), distances = [Float](repeating: 0, count: queries * k)
            for i in 0..<queries {
                var rowIndices = [Int32](repeating: 0, count: k), rowDistances = [Float](repeating: 0, count: k)
                _ = all.withUnsafeBufferPointer { ocm_k_smallest($0.baseAddress! + i * samples, Int32(samples), Int32(k), 0, &rowIndices, &rowDistances) }
                indices.replaceSubrange((i * k)..<((i + 1) * k), with: rowIndices)
                distances.replaceSubrange((i * k)..<((i + 1) * k), with: rowDistances)
            }
            return (indices, distances)
        }

        /// On every instruction set and thread count, `ocm_k_nearest_batch` gives the exact scan's
        /// neighbours and distances (that instruction set's own sums); `check` sees the exact answer
        /// first.
        static func expectBatchIsTheExactScan(
            _ q: [Float], _ queries: Int, _ s: [Float], _ samples: Int, _ dimensions: Int, k: Int,
            check: ((indices: [Int32], distances: [Float]), String) -> Void = { _, _ in }
        ) {
            forEachISAAndThreadCount { label in
                let expected = exactNeighbours(q, queries, s, samples, dimensions, k: k)
                check(expected, label)
                var indices = [Int32](repeating: -1, count: queries * k), distances = [Float](repeating: -1, count: queries * k)
                #expect(ocm_k_nearest_batch(q, Int32(queries), s, Int32(samples), Int32(dimensions), Int32(k), &indices, &distances), "\(label)")
                #expect(indices == expected.indices, "\(label)")
                #expect(distances == expected.distances, "\(label)")
            }
        }

        /// Samples with repeats (ties at every distance) and queries that copy samples (distance 0),
        /// on odd sizes that cross the kernel's sample blocks (the arch's nc: 480 or 512 samples).
        /// (30, 1100, 300, 4): several K blocks of the kernel (kc = 256) and several sample blocks.
        @Test(arguments: [(300, 2500, 33, 5), (17, 4099, 100, 1), (40, 1500, 7, 12), (3, 70, 1000, 70), (30, 1100, 300, 4)])
        func batchNeighboursAreTheExactScansTiesIncluded(shape: (Int, Int, Int, Int)) {
            let (queries, samples, dimensions, k) = shape
            var random = TestRandom(seed: UInt64(queries * 7 + samples + dimensions))
            let distinct = random.floats((samples / 3 + 1) * dimensions, -2, 2)
            var s: [Float] = []
            for j in 0..<samples {
                let source = random.int(0..<(samples / 3 + 1))
                s += distinct[(source * dimensions)..<((source + 1) * dimensions)]
                if j % 5 == 0 { s[j * dimensions] += 0.5 }
            }
            var q = random.floats(queries * dimensions, -2, 2)
            for i in stride(from: 0, to: queries, by: 4) {
                let source = random.int(0..<samples)
                q.replaceSubrange((i * dimensions)..<((i + 1) * dimensions), with: s[(source * dimensions)..<((source + 1) * dimensions)])
            }
            Self.expectBatchIsTheExactScan(q, queries, s, samples, dimensions, k: k)
        }

        /// Given sample norms (as an index keeps them) give the exact scan's answer too, on a batch
        /// that crosses the kernel's query blocks (1,024) and several sample blocks (the arch's nc);
        /// the norms are Σ x² of each row in Double, rounded once.
        @Test func batchWithGivenNormsIsTheExactScanAcrossQueryBlocks() {
            var random = TestRandom(seed: 41)
            let (queries, samples, dimensions, k) = (1100, 1300, 24, 3)
            let s = random.floats(samples * dimensions, -1, 1)
            var q = random.floats(queries * dimensions, -1, 1)
            for i in stride(from: 0, to: queries, by: 9) {
                let source = random.int(0..<samples)
                q.replaceSubrange((i * dimensions)..<((i + 1) * dimensions), with: s[(source * dimensions)..<((source + 1) * dimensions)])
            }
            var norms = [Float](repeating: -1, count: samples)
            ocm_squared_norms(s, Int32(samples), Int32(dimensions), &norms)
            let expectedNorms = (0..<samples).map { j in
                Float(s[(j * dimensions)..<((j + 1) * dimensions)].reduce(0.0) { $0 + Double($1) * Double($1) })
            }
            #expect(norms == expectedNorms)
            forEachISAAndThreadCount { label in
                let expected = Self.exactNeighbours(q, queries, s, samples, dimensions, k: k)
                var indices = [Int32](repeating: -1, count: queries * k), distances = [Float](repeating: -1, count: queries * k)
                #expect(ocm_k_nearest_batch_normed(q, Int32(queries), s, norms, Int32(samples), Int32(dimensions), Int32(k), &indices, &distances), "\(label)")
                #expect(indices == expected.indices, "\(label)")
                #expect(distances == expected.distances, "\(label)")
            }
        }

        /// Points far from the origin and close together: the GEMM's rounding bound covers most
        /// samples, so queries fall back to the exact scan, with the same answer.
        @Test func clusteredPointsFarFromTheOriginFallBackToTheExactScan() {
            var random = TestRandom(seed: 9)
            let (queries, samples, dimensions, k) = (20, 3000, 64, 3)
            let s = random.floats(samples * dimensions, -0.01, 0.01).map { $0 + 1000 }
            let q = random.floats(queries * dimensions, -0.01, 0.01).map { $0 + 1000 }
            let expected = Self.exactNeighbours(q, queries, s, samples, dimensions, k: k)
            var indices = [Int32](repeating: -1, count: queries * k), distances = [Float](repeating: -1, count: queries * k)
            #expect(ocm_k_nearest_batch(q, Int32(queries), s, Int32(samples), Int32(dimensions), Int32(k), &indices, &distances))
            #expect(indices == expected.indices)
            #expect(distances == expected.distances)
        }

        /// A finite query whose squared norm overflows float (‖q‖² ≈ 1e76): the GEMM's approximation
        /// would be inf − inf = NaN; the batch must still list the far-index copy of that query
        /// (sample 1,500, in a later sample block) first, as the exact scan does.
        @Test func queryWhoseNormOverflowsFloatStillFindsItsCopy() {
            var random = TestRandom(seed: 31)
            let (queries, samples, dimensions, k) = (20, 2000, 32, 3)
            var s = random.floats(samples * dimensions, -10, 10)
            s[0] = 5
            var q = random.floats(queries * dimensions, -1, 1)
            q[0] = 1e38
            s.replaceSubrange((1500 * dimensions)..<(1501 * dimensions), with: q[0..<dimensions])
            Self.expectBatchIsTheExactScan(q, queries, s, samples, dimensions, k: k) { expected, label in
                #expect(expected.indices[0] == 1500 && expected.distances[0] == 0, "\(label)")
            }
        }

        /// Samples ever closer to the queries as their index grows: with k = 1 every sample is a
        /// candidate when scanned, so each slot's list fills its room (4k + 1,024) and is pruned to
        /// the new bound (no overflow: the pruned list is short); the answer is still the exact one.
        @Test func listsPrunedWhenFullKeepTheExactAnswer() {
            var random = TestRandom(seed: 53)
            let (queries, samples, dimensions, k) = (16, 5000, 8, 1)
            var s = random.floats(samples * dimensions, -0.001, 0.001)
            for j in 0..<samples { s[j * dimensions] += Float(samples - j) * 0.01 }
            let q = random.floats(queries * dimensions, -0.001, 0.001)
            Self.expectBatchIsTheExactScan(q, queries, s, samples, dimensions, k: k)
        }

        /// k a large fraction of N (here 1,500 of 2,100, crossing sample blocks): the exact answer,
        /// ties included, whichever way the batch takes.
        @Test func largeKIsTheExactScan() {
            var random = TestRandom(seed: 77)
            let (queries, samples, dimensions, k) = (40, 2100, 40, 1500)
            var s = random.floats(samples * dimensions, -1, 1)
            s.replaceSubrange((2000 * dimensions)..<(2001 * dimensions), with: s[0..<dimensions])
            var q = random.floats(queries * dimensions, -1, 1)
            q.replaceSubrange(0..<dimensions, with: s[0..<dimensions])
            Self.expectBatchIsTheExactScan(q, queries, s, samples, dimensions, k: k)
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
