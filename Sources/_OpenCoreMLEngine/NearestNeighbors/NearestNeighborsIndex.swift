import Foundation
import _OpenCoreMLKernels

/// Labelled samples (rows of `dimensions` floats) searched for the k nearest to a query by squared
/// Euclidean distance, through a linear scan or a kd-tree.
///
/// Both structures return the same neighbours: distances are exact (Σ (q − s)², see
/// `ocm_squared_distances`) and ties go to the lower sample index. Large batches against the
/// linear index find candidates through a GEMM first (`ocm_k_nearest_batch_normed`), with the
/// same answer; the samples' squared norms it needs are kept with the index (computed once, not
/// per batch).
///
/// The kd-tree stays correct and balanced under edits by never being edited in place:
/// - it covers the samples present when it was built; samples appended later form an unindexed
///   tail that every search also scans linearly;
/// - when the tail outgrows eight leaves, or after any removal (which renumbers samples), the tree
///   is rebuilt from all samples at the next search: median splits along the widest dimension, so
///   every leaf holds at most `leafSize` samples and the depth is ⌈log₂(n / leafSize)⌉.
///
/// Searches serialize on an internal lock (they may rebuild the tree); edits must not overlap
/// searches (the owner's job).
package final class NearestNeighborsIndex: @unchecked Sendable {
    package enum Structure: Sendable, Equatable {
        case linear
        case kdTree(leafSize: Int)
    }

    package let dimensions: Int
    package let structure: Structure
    /// `count` rows of `dimensions` floats.
    package private(set) var samples: [Float]
    /// One class index per sample.
    package private(set) var labels: [Int32]
    private var tree: KDTree?
    /// Distances of a block of queries to every sample, kept between searches (under `lock`).
    private var distances: [Float] = []
    /// The squared norms (`ocm_squared_norms`) of the first `sampleNorms.count` samples, for the
    /// GEMM path: computed by the first GEMM batch and for samples appended since (a removal drops
    /// the removed samples', the others' values do not change; a copy keeps them), not per batch.
    private var sampleNorms: [Float] = []
    /// Samples whose squared norms are kept (for tests: norms survive copies and removals).
    package var normedSampleCount: Int { sampleNorms.count }
    /// Batches answered through the GEMM path (for tests: that a batch took it).
    package private(set) var gemmBatches = 0
    private let lock = NSLock()

    /// Queries searched per distance block (a block of distances is queries × samples floats).
    static let queryBlock = 32

    package var count: Int { labels.count }

    package init(dimensions: Int, structure: Structure, samples: [Float] = [], labels: [Int32] = []) {
        precondition(dimensions > 0 && samples.count == labels.count * dimensions)
        if case .kdTree(let leafSize) = structure { precondition(leafSize > 0) }
        self.dimensions = dimensions
        self.structure = structure
        self.samples = samples
        self.labels = labels
    }

    /// An independent copy (the tree is shared until either copy changes).
    package func copy() -> NearestNeighborsIndex {
        lock.lock()
        defer { lock.unlock() }
        let copy = NearestNeighborsIndex(dimensions: dimensions, structure: structure)
        copy.samples = samples
        copy.labels = labels
        copy.tree = tree
        copy.sampleNorms = sampleNorms
        return copy
    }

    /// Appends samples: `rows` holds `labels.count` rows of `dimensions` floats.
    package func append(rows: [Float], labels newLabels: [Int32]) {
        precondition(rows.count == newLabels.count * dimensions)
        samples.append(contentsOf: rows)
        labels.append(contentsOf: newLabels)
    }

    /// Removes the samples at `indices` (out-of-range indices are ignored); later samples move up.
    package func remove(at indices: some Sequence<Int>) {
        let doomed = Set(indices.filter { $0 >= 0 && $0 < count })
        guard !doomed.isEmpty else { return }
        var keptSamples: [Float] = []
        var keptLabels: [Int32] = []
        var keptNorms: [Float] = []
        keptSamples.reserveCapacity((count - doomed.count) * dimensions)
        keptLabels.reserveCapacity(count - doomed.count)
        for index in 0..<count where !doomed.contains(index) {
            keptSamples.append(contentsOf: samples[(index * dimensions)..<((index + 1) * dimensions)])
            keptLabels.append(labels[index])
            // Removal keeps the order: the kept samples of the normed prefix stay a prefix.
            if index < sampleNorms.count { keptNorms.append(sampleNorms[index]) }
        }
        samples = keptSamples
        labels = keptLabels
        sampleNorms = keptNorms
        tree = nil
    }

    /// The `k` nearest samples to each of `queryCount` query rows (`dimensions` floats each, finite).
    package func search(_ queries: UnsafePointer<Float>, queryCount: Int, k: Int) -> [NeighborList] {
        precondition(k >= 0 && queryCount >= 0)
        lock.lock()
        defer { lock.unlock() }
        let k = min(k, count)
        guard k > 0 else { return Array(repeating: NeighborList(), count: queryCount) }
        switch structure {
        case .linear:
            return linearSearch(queries, queryCount: queryCount, k: k)
        case .kdTree(let leafSize):
            let tree = currentTree(leafSize: leafSize)
            return samples.withUnsafeBufferPointer { all in
                (0..<queryCount).map { query in
                    tree.search(queries + query * dimensions, k: k, samples: all.baseAddress!, sampleCount: count)
                }
            }
        }
    }

    /// Batches at least this large, against at least `gemmMinimumSamples` samples of at least
    /// `gemmMinimumDimensions` values, go through `ocm_k_nearest_batch_normed` (a GEMM picks candidates,
    /// exact distances decide: the same neighbours as the exact scan).
    static let gemmMinimumQueries = 16
    static let gemmMinimumSamples = 1024
    static let gemmMinimumDimensions = 32
    /// Above `count / gemmMaximumKFraction` neighbours the exact scan answers: the GEMM path keeps
    /// heaps and candidate lists of about 5k entries per query and thread, the exact scan one
    /// row of distances.
    static let gemmMaximumKFraction = 16

    private func linearSearch(_ queries: UnsafePointer<Float>, queryCount: Int, k: Int) -> [NeighborList] {
        if queryCount >= Self.gemmMinimumQueries && count >= Self.gemmMinimumSamples && dimensions >= Self.gemmMinimumDimensions
            && k <= count / Self.gemmMaximumKFraction,
           let results = gemmSearch(queries, queryCount: queryCount, k: k) {
            return results
        }
        return exactSearch(queries, queryCount: queryCount, k: k)
    }

    /// The batch through `ocm_k_nearest_batch_normed`; nil if it ran out of memory.
    private func gemmSearch(_ queries: UnsafePointer<Float>, queryCount: Int, k: Int) -> [NeighborList]? {
        updateSampleNorms()
        var indices = [Int32](repeating: 0, count: queryCount * k)
        var found = [Float](repeating: 0, count: queryCount * k)
        let ok = samples.withUnsafeBufferPointer { all in
            sampleNorms.withUnsafeBufferPointer { norms in
                ocm_k_nearest_batch_normed(
                    queries, Int32(queryCount), all.baseAddress!, norms.baseAddress!, Int32(count), Int32(dimensions), Int32(k),
                    &indices, &found)
            }
        }
        guard ok else { return nil }
        gemmBatches += 1
        return (0..<queryCount).map { query in
            NeighborList(indices: Array(indices[(query * k)..<((query + 1) * k)]), distances: Array(found[(query * k)..<((query + 1) * k)]))
        }
    }

    /// Adds the squared norms of the samples that have none yet.
    private func updateSampleNorms() {
        let known = sampleNorms.count
        guard known < count else { return }
        sampleNorms += [Float](repeating: 0, count: count - known)
        samples.withUnsafeBufferPointer { all in
            sampleNorms.withUnsafeMutableBufferPointer { norms in
                ocm_squared_norms(all.baseAddress! + known * dimensions, Int32(count - known), Int32(dimensions), norms.baseAddress! + known)
            }
        }
    }

    /// Exact distances to every sample, a block of queries at a time, then the k smallest.
    private func exactSearch(_ queries: UnsafePointer<Float>, queryCount: Int, k: Int) -> [NeighborList] {
        var results: [NeighborList] = []
        results.reserveCapacity(queryCount)
        let block = Self.queryBlock
        let needed = min(block, queryCount) * count
        if distances.count < needed { distances = [Float](repeating: 0, count: needed) }
        var indices = [Int32](repeating: 0, count: k)
        var selected = [Float](repeating: 0, count: k)
        samples.withUnsafeBufferPointer { all in
            var start = 0
            while start < queryCount {
                let rows = min(block, queryCount - start)
                distances.withUnsafeMutableBufferPointer { out in
                    ocm_squared_distances(
                        queries + start * dimensions, Int32(rows), Int32(dimensions), all.baseAddress!, Int32(count),
                        Int32(dimensions), Int32(dimensions), out.baseAddress!, Int32(count))
                    for row in 0..<rows {
                        let found = Int(ocm_k_smallest(out.baseAddress! + row * count, Int32(count), Int32(k), 0, &indices, &selected))
                        results.append(NeighborList(indices: Array(indices[0..<found]), distances: Array(selected[0..<found])))
                    }
                }
                start += rows
            }
        }
        return results
    }

    /// The tree, rebuilt when removals invalidated it or the unindexed tail grew past eight leaves.
    private func currentTree(leafSize: Int) -> KDTree {
        if let tree, count - tree.count <= 8 * leafSize { return tree }
        let built = KDTree(samples: samples, count: count, dimensions: dimensions, leafSize: leafSize)
        tree = built
        return built
    }

    /// The depth of the current kd-tree (nil for a linear index); builds the tree if needed.
    package var treeDepth: Int? {
        guard case .kdTree(let leafSize) = structure else { return nil }
        lock.lock()
        defer { lock.unlock() }
        return currentTree(leafSize: leafSize).depth
    }
}
