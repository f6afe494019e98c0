import _OpenCoreMLEngine
import Testing
import _OpenCoreMLTestSupport

@Suite("Nearest-neighbours index")
struct NearestNeighborsIndexTests {
    /// The k nearest by a brute-force Double scan, ties by index.
    static func bruteForce(_ samples: [Float], dimensions: Int, query: [Float], k: Int) -> [Int32] {
        let count = samples.count / dimensions
        let distances = (0..<count).map { j in
            (0..<dimensions).reduce(0.0) { sum, d in
                let t = Double(query[d]) - Double(samples[j * dimensions + d])
                return sum + t * t
            }
        }
        return distances.enumerated().sorted { ($0.element, $0.offset) < ($1.element, $1.offset) }.prefix(k).map { Int32($0.offset) }
    }

    static func randomIndex(_ structure: NearestNeighborsIndex.Structure, count: Int, dimensions: Int, seed: UInt64) -> NearestNeighborsIndex {
        var random = TestRandom(seed: seed)
        // Rounded coordinates, so that duplicates and ties occur.
        let samples = (0..<(count * dimensions)).map { _ in Float(random.int(0..<6)) }
        let labels = (0..<count).map { _ in Int32(random.int(0..<3)) }
        return NearestNeighborsIndex(dimensions: dimensions, structure: structure, samples: samples, labels: labels)
    }

    @Test(arguments: [(1, 3), (5, 1), (7, 4), (200, 2)])
    func linearAndKDTreeReturnTheBruteForceNeighbours(parameters: (k: Int, leafSize: Int)) {
        let dimensions = 3
        let linear = Self.randomIndex(.linear, count: 150, dimensions: dimensions, seed: 11)
        let tree = Self.randomIndex(.kdTree(leafSize: parameters.leafSize), count: 150, dimensions: dimensions, seed: 11)
        var random = TestRandom(seed: 12)
        let queries = (0..<(40 * dimensions)).map { _ in random.float(-1, 7) }
        let fromLinear = linear.search(queries, queryCount: 40, k: parameters.k)
        let fromTree = tree.search(queries, queryCount: 40, k: parameters.k)
        for q in 0..<40 {
            let expected = Self.bruteForce(linear.samples, dimensions: dimensions, query: Array(queries[(q * 3)..<(q * 3 + 3)]), k: parameters.k)
            #expect(fromLinear[q].indices == expected, "linear query \(q)")
            #expect(fromTree[q] == fromLinear[q], "kd-tree query \(q)")
        }
    }

    @Test func theTreeStaysCorrectAndBalancedThroughAppendsAndRemovals() {
        let dimensions = 4, leafSize = 5
        let tree = Self.randomIndex(.kdTree(leafSize: leafSize), count: 64, dimensions: dimensions, seed: 21)
        let linear = Self.randomIndex(.linear, count: 64, dimensions: dimensions, seed: 21)
        var random = TestRandom(seed: 22)
        let queries = random.floats(30 * dimensions, -1, 7)
        func depthBound(_ count: Int) -> Int {
            // Median splits: ⌈log₂(count / leafSize)⌉ levels of splits above the leaves.
            var depth = 1, size = count
            while size > leafSize { size = (size + 1) / 2; depth += 1 }
            return depth
        }
        for round in 0..<12 {
            if round % 3 == 2 {
                let doomed = (0..<7).map { _ in random.int(0..<tree.count) }
                tree.remove(at: doomed)
                linear.remove(at: doomed)
            } else {
                let added = (0..<(9 * dimensions)).map { _ in Float(random.int(0..<6)) }
                let labels = (0..<9).map { _ in Int32(random.int(0..<3)) }
                tree.append(rows: added, labels: labels)
                linear.append(rows: added, labels: labels)
            }
            #expect(tree.samples == linear.samples && tree.labels == linear.labels)
            #expect(tree.search(queries, queryCount: 30, k: 6) == linear.search(queries, queryCount: 30, k: 6), "round \(round)")
            let depth = tree.treeDepth!
            #expect(depth <= depthBound(tree.count), "round \(round): depth \(depth) for \(tree.count) samples")
        }
    }

    /// Batches large enough for the GEMM path (which uses the sample norms kept with the index)
    /// stay the brute-force answer while samples are appended and removed: appended samples copy
    /// queries (distance 0, so they must be found), removals renumber the samples after them.
    /// Integer coordinates make the Float distances exact, so the Double scan is the reference.
    @Test func gemmBatchesStayExactThroughAppendsAndRemovals() {
        let dimensions = 32, queryCount = 20, k = 4
        let index = Self.randomIndex(.linear, count: 1100, dimensions: dimensions, seed: 31)
        var random = TestRandom(seed: 32)
        let queries = (0..<(queryCount * dimensions)).map { _ in Float(random.int(0..<6)) }
        #expect(index.normedSampleCount == 0, "norms are computed by the first GEMM batch, not when built")
        func check(_ context: String) {
            let gemmBatches = index.gemmBatches
            let found = index.search(queries, queryCount: queryCount, k: k)
            #expect(index.gemmBatches == gemmBatches + 1, "\(context): the batch took the GEMM path")
            #expect(index.normedSampleCount == index.count, "\(context)")
            for q in 0..<queryCount {
                let query = Array(queries[(q * dimensions)..<((q + 1) * dimensions)])
                let expected = Self.bruteForce(index.samples, dimensions: dimensions, query: query, k: k)
                #expect(found[q].indices == expected, "\(context), query \(q)")
            }
        }
        check("built")
        for round in 0..<4 {
            if round % 2 == 1 {
                index.remove(at: (0..<30).map { _ in random.int(0..<index.count) } + [0, 1])
            } else {
                let copies = (0..<5).map { _ in random.int(0..<queryCount) }
                let rows = copies.flatMap { queries[($0 * dimensions)..<(($0 + 1) * dimensions)] }
                index.append(rows: rows, labels: [Int32](repeating: 0, count: copies.count))
            }
            check("round \(round)")
            let copy = index.copy()
            #expect(copy.normedSampleCount == index.count, "copy keeps the norms, round \(round)")
            #expect(copy.search(queries, queryCount: queryCount, k: k) == index.search(queries, queryCount: queryCount, k: k), "copy, round \(round)")
        }
    }

    @Test func kLargerThanTheSampleCountReturnsEverySampleAndAnEmptyIndexNone() {
        let index = Self.randomIndex(.kdTree(leafSize: 2), count: 5, dimensions: 2, seed: 3)
        #expect(index.search([0, 0], queryCount: 1, k: 10)[0].count == 5)
        let empty = NearestNeighborsIndex(dimensions: 2, structure: .linear)
        #expect(empty.search([0, 0], queryCount: 1, k: 3) == [NeighborList()])
    }

    @Test func votesFollowTheWeightingAndBreakTiesByTheNearestNeighbour() {
        let labels: [Int32] = [0, 1, 1, 2]
        let neighbors = NeighborList(indices: [0, 1, 2, 3], distances: [1, 2, 2, 4])
        let uniform = NeighborVote(neighbors: neighbors, labels: labels, classCount: 3, weighting: .uniform)!
        #expect(uniform.winner == 1 && uniform.shares == [0.25, 0.5, 0.25])
        let inverse = NeighborVote(neighbors: neighbors, labels: labels, classCount: 3, weighting: .inverseDistance)!
        // weights 1, 0.5 + 0.5, 0.25: a tie between classes 0 and 1 goes to 0, whose neighbour is nearer.
        #expect(inverse.winner == 0)
        #expect(inverse.shares.map { ($0 * 2.25).rounded() } == [1, 1, 0] && abs(inverse.shares[2] - 0.25 / 2.25) < 1e-12)
        let exact = NeighborVote(neighbors: NeighborList(indices: [3, 0], distances: [0, 1]), labels: labels, classCount: 3, weighting: .inverseDistance)!
        #expect(exact.winner == 2 && exact.shares == [0, 0, 1])
        #expect(NeighborVote(neighbors: NeighborList(), labels: labels, classCount: 3, weighting: .uniform) == nil)
    }
}
