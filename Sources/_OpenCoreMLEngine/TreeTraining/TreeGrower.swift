/// Grows one tree depthwise on binned rows (XGBoost's "hist" method): a level's nodes find their
/// best splits from their histograms, split nodes part their rows (stably, so each node's rows stay
/// ascending), and of each pair of children only the one with fewer rows gets its histogram built —
/// the other's is its parent's minus it. Splits reducing the loss by less than `minLossReduction`
/// are pruned afterwards, bottom-up.
struct TreeGrower {
    let data: BinnedFeatures
    let outputs: Int
    let growth: TreeGrowthParameters
    let lambda: Double

    /// The most bytes a level's histograms may take; past it (deep trees over many features) each
    /// node's histogram is built directly instead of by subtraction, a batch within this at a time.
    static let defaultHistogramBudget = 256 << 20
    var histogramBudget = Self.defaultHistogramBudget
    /// The two levels' histograms (a level's and its children's), kept from tree to tree: no
    /// allocation, page faults or zeroing per level (every histogram is written whole before it is read).
    private let levelBuffers = LevelHistogramBuffers()
    /// The bins feature-major, for parting rows and boosting's histograms (made once per grower, so once per fit).
    private let columns: ColumnBins

    init(data: BinnedFeatures, outputs: Int, growth: TreeGrowthParameters, lambda: Double) {
        self.data = data
        self.outputs = outputs
        self.growth = growth
        self.lambda = lambda
        columns = ColumnBins(data, slots: growth.slots)
    }

    struct Node {
        var begin: Int
        var end: Int
        var sums: [Double]
        var depth: Int
        var split: SplitCandidate?
        var left = -1
        var right = -1
    }

    /// A grown tree: nodes (0 the root), and its rows parted so that each node's rows are
    /// `rows[begin..<end]`.
    struct Grown {
        var nodes: [Node]
        var rows: [UInt32]
    }

    /// Grows a tree on `rows` (ascending; a row may repeat) with per-row values
    /// `values[row·(outputs+1) ..< +outputs+1]` (gradients, then the hessian), splitting on `features`.
    func grow(rows initialRows: [UInt32], values: UnsafePointer<Float>, features: [Int32]) throws -> Grown {
        let width = outputs + 1
        var rows = initialRows
        var scratch = [UInt32](repeating: 0, count: rows.count)
        let histograms = try GradientHistograms(data: data, width: width, features: features, slots: growth.slots, columns: columns)
        let finder = SplitFinder(data: data, outputs: outputs, lambda: lambda, minChildWeight: growth.minChildWeight)
        var nodes = [Node(begin: 0, end: rows.count, sums: rootSums(rows, values: values, width: width), depth: 0)]
        var level = [0]
        // The level's histograms (one per node of `level`, in one of the two kept buffers), or nil
        // when a level had too many nodes to keep them: then each node's is built directly, a batch
        // within the budget at a time.
        var levelBuffer = 0
        var levelHistograms: UnsafeMutablePointer<Double>? = try levelBuffers.buffer(levelBuffer, count: histograms.size)
        try rows.withUnsafeBufferPointer { rowsBuffer in
            // Every row once, in order (boosting without subsampling): the root's rows are consecutive.
            var consecutive = rowsBuffer.count == data.rowCount
            for (i, row) in rowsBuffer.enumerated() where consecutive && Int(row) != i { consecutive = false }
            try histograms.build([.init(rows: rowsBuffer.baseAddress!, count: rowsBuffer.count, output: levelHistograms!,
                                        consecutive: consecutive)],
                                 values: values)
        }
        let budgetNodes = max(1, histogramBudget / 8 / histograms.size)
        for depth in 0..<growth.maxDepth {
            // Splits of this level's nodes: each (node, feature) on whichever thread is free, then
            // each node's features' bests in the features' order.
            var candidates = [SplitCandidate?](repeating: nil, count: level.count)
            let nodesNow = nodes
            func findSplits(_ hist: UnsafePointer<Double>, _ batch: Range<Int>) {
                let featureCount = features.count
                var perFeature = [SplitCandidate?](repeating: nil, count: batch.count * featureCount)
                perFeature.withUnsafeMutableBufferPointer { out in
                    let out = out
                    parallelForEach(batch.count * featureCount, slots: growth.slots) { _, item in
                        let j = item / featureCount
                        out[item] = finder.bestOfFeature(Int(features[item % featureCount]), histogram: hist + j * histograms.size,
                                                         sums: nodesNow[level[batch.lowerBound + j]].sums)
                    }
                }
                for j in 0..<batch.count {
                    candidates[batch.lowerBound + j] = finder.choose(Array(perFeature[(j * featureCount)..<((j + 1) * featureCount)]))
                }
            }
            if let levelHistograms {
                findSplits(levelHistograms, 0..<level.count)
            } else {
                var buffer = [Double](repeating: 0, count: min(budgetNodes, level.count) * histograms.size)
                for start in stride(from: 0, to: level.count, by: budgetNodes) {
                    let batch = start..<min(level.count, start + budgetNodes)
                    try rows.withUnsafeBufferPointer { rowsBuffer in
                        try buffer.withUnsafeMutableBufferPointer { out in
                            let jobs = batch.map { i in
                                GradientHistograms.Job(rows: rowsBuffer.baseAddress! + nodesNow[level[i]].begin,
                                                       count: nodesNow[level[i]].end - nodesNow[level[i]].begin,
                                                       output: out.baseAddress! + (i - start) * histograms.size)
                            }
                            try histograms.build(jobs, values: values)
                        }
                    }
                    buffer.withUnsafeBufferPointer { findSplits($0.baseAddress!, batch) }
                }
            }
            let splitting = level.indices.filter { candidates[$0] != nil }
            if splitting.isEmpty { break }
            // Part the rows of each split node.
            let partition = RowPartition(data: data, columns: columns, slots: growth.slots)
            let leftCounts = rows.withUnsafeMutableBufferPointer { rowsBuffer in
                scratch.withUnsafeMutableBufferPointer { scratchBuffer in
                    partition.part(rows: rowsBuffer.baseAddress!, scratch: scratchBuffer.baseAddress!,
                                   ranges: splitting.map { nodes[level[$0]].begin..<nodes[level[$0]].end },
                                   features: splitting.map { candidates[$0]!.feature },
                                   tables: splitting.map { candidates[$0]!.leftBins(data) })
                }
            }
            var children = [Int]()
            for (s, i) in splitting.enumerated() {
                let parent = level[i]
                let candidate = candidates[i]!
                let middle = nodes[parent].begin + leftCounts[s]
                nodes[parent].split = candidate
                nodes[parent].left = nodes.count
                nodes.append(Node(begin: nodes[parent].begin, end: middle, sums: candidate.left, depth: depth + 1))
                nodes[parent].right = nodes.count
                nodes.append(Node(begin: middle, end: nodes[parent].end, sums: candidate.right, depth: depth + 1))
                children.append(nodes[parent].left)
                children.append(nodes[parent].right)
            }
            guard depth + 1 < growth.maxDepth else { break }
            guard let parentHistograms = levelHistograms, children.count <= budgetNodes else {
                levelHistograms = nil
                level = children
                continue
            }
            // Histograms of the children: the smaller built, the larger by subtraction.
            let nextBase = try levelBuffers.buffer(1 - levelBuffer, count: try checkedProduct(children.count, histograms.size, "histograms"))
            let withChildren = nodes
            try rows.withUnsafeBufferPointer { rowsBuffer in
                var jobs = [GradientHistograms.Job]()
                for s in splitting.indices {
                    let l = withChildren[children[2 * s]], r = withChildren[children[2 * s + 1]]
                    let smaller = (l.end - l.begin) <= (r.end - r.begin) ? 2 * s : 2 * s + 1
                    let node = withChildren[children[smaller]]
                    jobs.append(.init(rows: rowsBuffer.baseAddress! + node.begin, count: node.end - node.begin,
                                      output: nextBase + smaller * histograms.size))
                }
                try histograms.build(jobs, values: values)
            }
            parallelForEach(splitting.count, slots: growth.slots) { _, s in
                let l = withChildren[children[2 * s]], r = withChildren[children[2 * s + 1]]
                let built = (l.end - l.begin) <= (r.end - r.begin) ? 2 * s : 2 * s + 1
                let other = built ^ 1
                histograms.subtract(parent: parentHistograms + splitting[s] * histograms.size,
                                    built: nextBase + built * histograms.size,
                                    into: nextBase + other * histograms.size)
            }
            levelHistograms = nextBase
            levelBuffer = 1 - levelBuffer
            level = children
        }
        prune(&nodes, 0)
        return Grown(nodes: nodes, rows: rows)
    }

    /// The root's sums over its rows, in fixed blocks (the same for any number of threads).
    private func rootSums(_ rows: [UInt32], values: UnsafePointer<Float>, width: Int) -> [Double] {
        let block = GradientHistograms.blockRows
        let blocks = max(1, (rows.count + block - 1) / block)
        var partial = [Double](repeating: 0, count: blocks * width)
        partial.withUnsafeMutableBufferPointer { out in
            let out = out
            rows.withUnsafeBufferPointer { rows in
                parallelForEach(blocks, slots: growth.slots) { _, b in
                    let range = (b * block)..<min(rows.count, (b + 1) * block)
                    if width == 2 {
                        // Boosting's gradient–hessian pairs, summed in registers (the same additions
                        // in the same order as the general loop, without a store per row).
                        var g = 0.0, h = 0.0
                        for i in range {
                            let v = values + Int(rows[i]) * 2
                            g += Double(v[0])
                            h += Double(v[1])
                        }
                        out[b * 2] = g
                        out[b * 2 + 1] = h
                        return
                    }
                    for i in range {
                        let v = values + Int(rows[i]) * width
                        for j in 0..<width { out[b * width + j] += Double(v[j]) }
                    }
                }
            }
        }
        var sums = [Double](repeating: 0, count: width)
        for b in 0..<blocks {
            for j in 0..<width { sums[j] += partial[b * width + j] }
        }
        return sums
    }

    /// XGBoost's pruning: a split whose children are both leaves and whose loss reduction is
    /// below `minLossReduction` becomes a leaf, bottom-up.
    private func prune(_ nodes: inout [Node], _ i: Int) {
        guard let split = nodes[i].split else { return }
        prune(&nodes, nodes[i].left)
        prune(&nodes, nodes[i].right)
        if nodes[nodes[i].left].split == nil, nodes[nodes[i].right].split == nil,
           split.gain < growth.minLossReduction {
            nodes[i].split = nil
        }
    }
}

extension TreeGrower.Grown {
    /// The leaves reachable from the root, in order.
    var leaves: [Int] {
        var out = [Int]()
        func walk(_ i: Int) {
            if nodes[i].split == nil { out.append(i) } else { walk(nodes[i].left); walk(nodes[i].right) }
        }
        walk(0)
        return out
    }

    /// The tree in raw units, a leaf's values from `leafValues(sums)`.
    func trained(_ data: BinnedFeatures, outputDimension: Int, leafValues: ([Double]) -> [Double]) -> TrainedTree {
        var out = [TrainedTree.Node]()
        func emit(_ i: Int) -> Int {
            let index = out.count
            let node = nodes[i]
            guard let split = node.split else {
                out.append(.leaf(leafValues(node.sums)))
                return index
            }
            out.append(TrainedTree.Node(feature: split.feature, test: split.test(data), trueChild: -1, falseChild: -1,
                                        missingGoesToTrueChild: split.missingLeft, values: []))
            let t = emit(node.left)
            let f = emit(node.right)
            out[index].trueChild = t
            out[index].falseChild = f
            return index
        }
        _ = emit(0)
        return TrainedTree(nodes: out, outputDimension: outputDimension)
    }
}

/// ``TreeGrower``'s two level-histogram buffers, grown as needed and kept from tree to tree (one
/// grower grows one tree at a time).
final class LevelHistogramBuffers: @unchecked Sendable {
    private var pointers: [UnsafeMutablePointer<Double>?] = [nil, nil]
    private var capacities = [0, 0]

    /// Buffer `index` (0 or 1) with room for at least `count` doubles (its contents undefined).
    func buffer(_ index: Int, count: Int) throws -> UnsafeMutablePointer<Double> {
        if let pointer = pointers[index], capacities[index] >= count { return pointer }
        pointers[index]?.deallocate()
        pointers[index] = nil
        capacities[index] = 0
        let pointer = UnsafeMutablePointer<Double>.allocate(capacity: max(1, count))
        pointers[index] = pointer
        capacities[index] = count
        return pointer
    }

    deinit {
        for pointer in pointers { pointer?.deallocate() }
    }
}
