/// Labeled examples for `train` and `evaluate`: `count` rows of `featureCount` values, already scaled,
/// row-major in `values`, and one class index per row in `labels`.
struct LabeledDataset {
    /// What to call the data in messages, e.g. `fashion-mnist (train)`.
    let name: String
    let count: Int
    let featureCount: Int
    /// `count × featureCount` values, row after row.
    var values: [Float]
    /// `count` class indices, each at least 0.
    var labels: [Int]
    /// The layout of one row, e.g. `[28, 28]` for IDX images; `[featureCount]` when the source has none.
    let sampleShape: [Int]

    init(name: String, count: Int, featureCount: Int, values: [Float], labels: [Int], sampleShape: [Int]? = nil) {
        precondition(values.count == count * featureCount, "values must hold count × featureCount numbers")
        precondition(labels.count == count, "labels must hold one class index per row")
        self.name = name
        self.count = count
        self.featureCount = featureCount
        self.values = values
        self.labels = labels
        self.sampleShape = sampleShape ?? [featureCount]
    }

    /// Row `index`'s values.
    func row(_ index: Int) -> ArraySlice<Float> {
        values[(index * featureCount)..<((index + 1) * featureCount)]
    }

    /// The number of classes the labels imply: the largest label plus one (0 when empty).
    var classCount: Int { (labels.max() ?? -1) + 1 }

    /// The first `n` rows (all of them when `n >= count`), e.g. for a quick `--limit` run.
    func prefix(_ n: Int) -> LabeledDataset {
        let kept = max(0, min(n, count))
        return LabeledDataset(
            name: name, count: kept, featureCount: featureCount,
            values: Array(values.prefix(kept * featureCount)), labels: Array(labels.prefix(kept)), sampleShape: sampleShape)
    }
}
