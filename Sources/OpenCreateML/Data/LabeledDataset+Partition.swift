import CoreMLSpec
import Foundation

extension LabeledDataset {
    /// How examples are dealt out among the clients of a federation (an OpenCoreML addition, as
    /// Flower's `flwr-datasets` partitioners do it): every client computes its own part from the same
    /// seed, so the parts are disjoint and together hold every example.
    public enum Partitioning: Sendable, Equatable {
        /// IID: a seeded shuffle cut into equal parts (sizes differ by at most one).
        case iid
        /// Non-IID by label: for each class, the share each client gets is drawn from a symmetric
        /// Dirichlet distribution with concentration `alpha` (smaller is more skewed; 0.5 is common).
        case dirichlet(alpha: Double)
    }

    /// The examples at `indices`, in that order.
    public func subset(_ indices: [Int]) -> LabeledDataset {
        var rows: [Float] = []
        rows.reserveCapacity(indices.count * featureCount)
        for index in indices { rows.append(contentsOf: row(index)) }
        return LabeledDataset(name: name, count: indices.count, featureCount: featureCount,
                              values: rows, labels: indices.map { labels[$0] }, sampleShape: sampleShape)
    }

    /// A seeded random split into training examples and `testFraction` of them held out for testing
    /// (at least one each), each keeping the original order.
    /// - Throws: When there are fewer than two examples or the fraction is not between 0 and 1.
    public func randomSplit(testFraction: Double, seed: UInt64 = 0) throws -> (training: LabeledDataset, test: LabeledDataset) {
        guard testFraction > 0, testFraction < 1 else {
            throw CreateMLError(name, "the test fraction must be between 0 and 1, got \(testFraction)")
        }
        guard count >= 2 else { throw CreateMLError(name, "\(count) example cannot be split into training and test examples") }
        var random = SplitMix64(seed: seed)
        let order = Array(0..<count).shuffled(using: &random)
        let held = min(count - 1, max(1, Int((Double(count) * testFraction).rounded())))
        return (subset(order.dropFirst(held).sorted()), subset(order.prefix(held).sorted()))
    }

    /// Part `index` (from 0) of `count` parts, dealt out by `partitioning` with `seed`.
    /// - Throws: When `index` is not in `0..<count`, `alpha` is not a positive number, or the part is empty.
    public func partition(_ index: Int, of count: Int, by partitioning: Partitioning = .iid, seed: UInt64 = 0) throws -> LabeledDataset {
        guard count >= 1, (0..<count).contains(index) else {
            throw CreateMLError(name, "partition \(index + 1) of \(count) does not exist (give I/N with 1 ≤ I ≤ N)")
        }
        let indices = try Self.partitionIndices(labels: labels, parts: count, by: partitioning, seed: seed)[index]
        guard !indices.isEmpty else {
            throw CreateMLError(name, "partition \(index + 1) of \(count) holds no examples (\(self.count) examples; try a larger alpha or fewer parts)")
        }
        let part = subset(indices)
        return LabeledDataset(name: "\(name) part \(index + 1)/\(count)", count: part.count, featureCount: featureCount,
                              values: part.values, labels: part.labels, sampleShape: sampleShape)
    }

    /// The example indices of every part, each part sorted.
    static func partitionIndices(labels: [Int], parts: Int, by partitioning: Partitioning, seed: UInt64) throws -> [[Int]] {
        var random = SplitMix64(seed: seed)
        var result = [[Int]](repeating: [], count: parts)
        switch partitioning {
        case .iid:
            let shuffled = Array(labels.indices).shuffled(using: &random)
            for (position, example) in shuffled.enumerated() { result[position % parts].append(example) }
        case .dirichlet(let alpha):
            guard alpha.isFinite, alpha > 0 else {
                throw CreateMLError("partitioning", "the Dirichlet alpha must be a positive number, got \(alpha)")
            }
            let classes = (labels.max() ?? -1) + 1
            var byClass = [[Int]](repeating: [], count: classes)
            for (example, label) in labels.enumerated() { byClass[label].append(example) }
            for members in byClass where !members.isEmpty {
                let shuffled = members.shuffled(using: &random)
                let draws = (0..<parts).map { _ in gammaSample(shape: alpha, using: &random) }
                let total = draws.reduce(0, +)
                // Cumulative cut points, so the shares add up to the class exactly.
                var start = 0, cumulative = 0.0
                for part in 0..<parts {
                    cumulative += total > 0 ? draws[part] / total : 1 / Double(parts)
                    let end = part == parts - 1 ? shuffled.count : min(shuffled.count, Int((cumulative * Double(shuffled.count)).rounded()))
                    if end > start { result[part].append(contentsOf: shuffled[start..<end]) }
                    start = max(start, end)
                }
            }
        }
        return result.map { $0.sorted() }
    }

    /// A Gamma(shape, 1) sample (Marsaglia and Tsang; shapes below 1 through the boost
    /// Gamma(a) = Gamma(a + 1) · U^(1/a)).
    static func gammaSample(shape: Double, using random: inout SplitMix64) -> Double {
        func uniform() -> Double { (Double(random.next() >> 11) + 0.5) / Double(1 << 53) }
        func normal() -> Double { (-2 * log(uniform())).squareRoot() * cos(2 * Double.pi * uniform()) }
        if shape < 1 {
            return gammaSample(shape: shape + 1, using: &random) * pow(uniform(), 1 / shape)
        }
        let d = shape - 1.0 / 3, c = 1 / (9 * d).squareRoot()
        while true {
            var x: Double, v: Double
            repeat {
                x = normal()
                v = 1 + c * x
            } while v <= 0
            v = v * v * v
            let u = uniform()
            if log(u) < 0.5 * x * x + d - d * v + d * log(v) { return d * v }
        }
    }
}
