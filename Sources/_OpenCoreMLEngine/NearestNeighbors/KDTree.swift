import _OpenCoreMLKernels

/// A kd-tree over the first `count` samples of a ``NearestNeighborsIndex``, built once by median
/// splits along the widest dimension (so it is balanced) and never edited; leaves hold their
/// samples contiguously (`points`) so a leaf is one distance-kernel call.
struct KDTree: Sendable {
    private struct Node: Sendable {
        /// The split dimension, or −1 for a leaf.
        var dimension: Int32
        var split: Float
        /// Inner node: the children's node indices. Leaf: its range [first, second) of tree positions.
        var first: Int32
        var second: Int32
    }

    let count: Int
    let dimensions: Int
    let leafSize: Int
    /// Levels from the root to the deepest leaf (1 for a single leaf).
    private(set) var depth = 0
    private var nodes: [Node] = []
    /// Tree position → sample index.
    private var order: [Int32]
    /// The samples in tree order.
    private var points: [Float] = []

    init(samples: [Float], count: Int, dimensions: Int, leafSize: Int) {
        self.count = count
        self.dimensions = dimensions
        self.leafSize = leafSize
        order = (0..<Int32(count)).map { $0 }
        samples.withUnsafeBufferPointer { samples in
            _ = build(samples.baseAddress!, 0, count, level: 1)
            var points = [Float](repeating: 0, count: count * dimensions)
            points.withUnsafeMutableBufferPointer { points in
                for (position, sample) in order.enumerated() {
                    (points.baseAddress! + position * dimensions)
                        .update(from: samples.baseAddress! + Int(sample) * dimensions, count: dimensions)
                }
            }
            self.points = points
        }
    }

    /// Builds the subtree of tree positions [low, high) and returns its node index.
    private mutating func build(_ samples: UnsafePointer<Float>, _ low: Int, _ high: Int, level: Int) -> Int32 {
        let index = Int32(nodes.count)
        depth = max(depth, level)
        guard high - low > leafSize else {
            nodes.append(Node(dimension: -1, split: 0, first: Int32(low), second: Int32(high)))
            return index
        }
        let dimension = widestDimension(samples, low, high)
        let middle = low + (high - low) / 2
        select(samples, dimension: dimension, low, high, nth: middle)
        let split = samples[Int(order[middle]) * dimensions + dimension]
        nodes.append(Node(dimension: Int32(dimension), split: split, first: 0, second: 0))
        let left = build(samples, low, middle, level: level + 1)
        let right = build(samples, middle, high, level: level + 1)
        nodes[Int(index)].first = left
        nodes[Int(index)].second = right
        return index
    }

    /// The dimension with the largest range over (up to 256 evenly spaced of) positions [low, high).
    private func widestDimension(_ samples: UnsafePointer<Float>, _ low: Int, _ high: Int) -> Int {
        let step = max(1, (high - low) / 256)
        var lower = [Float](repeating: .infinity, count: dimensions)
        var upper = [Float](repeating: -.infinity, count: dimensions)
        for position in stride(from: low, to: high, by: step) {
            let row = samples + Int(order[position]) * dimensions
            for d in 0..<dimensions {
                lower[d] = min(lower[d], row[d])
                upper[d] = max(upper[d], row[d])
            }
        }
        var best = 0
        for d in 1..<max(dimensions, 1) where upper[d] - lower[d] > upper[best] - lower[best] { best = d }
        return best
    }

    /// Reorders positions [low, high) so that position `nth` holds the sample whose coordinate
    /// `dimension` would be there if sorted, smaller-or-equal ones before it and larger-or-equal after.
    private mutating func select(_ samples: UnsafePointer<Float>, dimension: Int, _ low: Int, _ high: Int, nth: Int) {
        let dimensions = self.dimensions
        order.withUnsafeMutableBufferPointer { order in
            func key(_ position: Int) -> Float { samples[Int(order[position]) * dimensions + dimension] }
            var low = low, high = high - 1
            while low < high {
                // Median of three as the pivot, then a Hoare partition.
                let mid = low + (high - low) / 2
                if key(mid) < key(low) { order.swapAt(mid, low) }
                if key(high) < key(low) { order.swapAt(high, low) }
                if key(high) < key(mid) { order.swapAt(high, mid) }
                let pivot = key(mid)
                var i = low, j = high
                while i <= j {
                    while key(i) < pivot { i += 1 }
                    while key(j) > pivot { j -= 1 }
                    if i <= j {
                        order.swapAt(i, j)
                        i += 1
                        j -= 1
                    }
                }
                if nth <= j { high = j } else if nth >= i { low = i } else { return }
            }
        }
    }

    /// The k nearest (k ≥ 1) among the tree's samples and the unindexed tail [count, sampleCount).
    func search(_ query: UnsafePointer<Float>, k: Int, samples: UnsafePointer<Float>, sampleCount: Int) -> NeighborList {
        var heapValues = [Float](repeating: 0, count: k)
        var heapIndices = [Int32](repeating: 0, count: k)
        var size: Int32 = 0
        var distances = [Float](repeating: 0, count: max(leafSize, min(sampleCount - count, 4096), 1))
        let dimensions = self.dimensions
        heapValues.withUnsafeMutableBufferPointer { heapValues in
            heapIndices.withUnsafeMutableBufferPointer { heapIndices in
                distances.withUnsafeMutableBufferPointer { distances in
                    let (values, indices, scratch) = (heapValues.baseAddress!, heapIndices.baseAddress!, distances.baseAddress!)
                    func offer(_ rows: UnsafePointer<Float>, _ n: Int, sampleIndex: (Int) -> Int32) {
                        ocm_squared_distances(query, 1, Int32(dimensions), rows, Int32(n), Int32(dimensions), Int32(dimensions), scratch, Int32(n))
                        for i in 0..<n {
                            size = ocm_heap_offer(values, indices, size, Int32(k), scratch[i], sampleIndex(i))
                        }
                    }
                    points.withUnsafeBufferPointer { points in
                        order.withUnsafeBufferPointer { order in
                            func visit(_ node: Int32) {
                                let node = nodes[Int(node)]
                                if node.dimension < 0 {
                                    let first = Int(node.first), n = Int(node.second) - first
                                    if n > 0 {
                                        offer(points.baseAddress! + first * dimensions, n) { order[first + $0] }
                                    }
                                    return
                                }
                                let gap = query[Int(node.dimension)] - node.split
                                visit(gap <= 0 ? node.first : node.second)
                                if Int(size) < k || gap * gap <= values[0] {
                                    visit(gap <= 0 ? node.second : node.first)
                                }
                            }
                            if !nodes.isEmpty { visit(0) }
                        }
                    }
                    var start = count
                    let block = distances.count
                    while start < sampleCount {
                        let n = min(block, sampleCount - start)
                        let base = start
                        offer(samples + start * dimensions, n) { Int32(base + $0) }
                        start += n
                    }
                    ocm_heap_sort_ascending(values, indices, size)
                }
            }
        }
        return NeighborList(indices: Array(heapIndices[0..<Int(size)]), distances: Array(heapValues[0..<Int(size)]))
    }
}
