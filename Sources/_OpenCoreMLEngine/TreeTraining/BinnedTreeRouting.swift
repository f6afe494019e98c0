/// A grown tree over binned rows: each split's test as a table of the bins that go to its true
/// child, for adding a tree's leaf values to the scores of rows it did not train on (validation
/// rows, rows left out by subsampling). Routes exactly as the raw-unit `TrainedTree` does.
struct BinnedTreeRouting {
    private var feature: [Int]
    private var trueChild: [Int]
    private var falseChild: [Int]
    /// 256 entries per node.
    private var goesTrue: [Bool]
    /// `width` values per node (leaves only).
    private var values: [Double]
    let width: Int

    init(_ grown: TreeGrower.Grown, data: BinnedFeatures, width: Int, leafValues: ([Double]) -> [Double]) {
        self.width = width
        let count = grown.nodes.count
        feature = [Int](repeating: -1, count: count)
        trueChild = [Int](repeating: -1, count: count)
        falseChild = [Int](repeating: -1, count: count)
        goesTrue = [Bool](repeating: false, count: count * 256)
        values = [Double](repeating: 0, count: count * width)
        for (i, node) in grown.nodes.enumerated() {
            if let split = node.split {
                feature[i] = split.feature
                trueChild[i] = node.left
                falseChild[i] = node.right
                for (b, t) in split.leftBins(data).enumerated() { goesTrue[i * 256 + b] = t }
            } else {
                for (k, v) in leafValues(node.sums).enumerated() where k < width { values[i * width + k] = v }
            }
        }
    }

    /// Adds the tree's leaf values to `scores[row·dimensions + outputDimension + k]` for every row of `data`.
    func addScores(_ data: BinnedFeatures, to scores: UnsafeMutablePointer<Double>, dimensions: Int,
                   outputDimension: Int, slots: Int) {
        let block = 4096
        let blocks = (data.rowCount + block - 1) / block
        let stride = data.featureCount
        data.bins.withUnsafeBufferPointer { bins in
            parallelForEach(blocks, slots: slots) { _, b in
                for r in (b * block)..<min(data.rowCount, (b + 1) * block) {
                    var i = 0
                    while feature[i] >= 0 {
                        let bin = Int(bins[r * stride + feature[i]])
                        i = goesTrue[i * 256 + bin] ? trueChild[i] : falseChild[i]
                    }
                    for k in 0..<width { scores[r * dimensions + outputDimension + k] += values[i * width + k] }
                }
            }
        }
    }
}
