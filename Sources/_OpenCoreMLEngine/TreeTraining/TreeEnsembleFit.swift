import Foundation

/// A trained ensemble: its trees, the base values they add to, and the transform from raw scores
/// to outputs (boosted classifiers: the logistic or the softmax; forests: none — their leaves
/// already hold class shares, or means less the base value, divided by the tree count).
package struct TreeEnsembleFit: Sendable {
    package enum Transform: Sendable, Equatable { case none, logistic, softmax }

    package var trees: [TrainedTree]
    /// One per output dimension.
    package var baseValues: [Double]
    package var dimensions: Int
    package var transform: Transform
    /// The last iteration kept (0-based): with early stopping the best on validation, else the last trained.
    package var bestIteration: Int
    /// Boosting: the kept trees' raw scores (row-major rows × dimensions) on the training rows and
    /// on the validation rows, as the trainer summed them while it trained — each row's base value,
    /// then its leaf's value of every tree in tree order, the additions a Core ML tree ensemble
    /// makes, reaching the same leaves (``BinnedTreeRouting``) — so the finished model's metrics
    /// need no second evaluation. Nil when early stopping dropped trees trained after the best.
    package var trainingScores: [Double]?
    package var validationScores: [Double]?

    package init(trees: [TrainedTree], baseValues: [Double], dimensions: Int, transform: Transform, bestIteration: Int) {
        self.trees = trees
        self.baseValues = baseValues
        self.dimensions = dimensions
        self.transform = transform
        self.bestIteration = bestIteration
    }

    /// Raw scores (before the transform), row-major rows × dimensions, for column-major raw
    /// values like `BinnedFeatures.init`'s (NaN = missing), evaluated as a Core ML tree ensemble does.
    package func scores(columns: [[Double]]) -> [Double] {
        let rows = columns.first?.count ?? 0
        var out = [Double](repeating: 0, count: rows * dimensions)
        for r in 0..<rows {
            for d in 0..<dimensions { out[r * dimensions + d] = baseValues[d] }
            for tree in trees {
                let leaf = tree.leaf { f in f < columns.count && r < columns[f].count ? columns[f][r] : .nan }
                for (k, v) in leaf.values.enumerated() where tree.outputDimension + k < dimensions {
                    out[r * dimensions + tree.outputDimension + k] += v
                }
            }
        }
        return out
    }

    /// `scores` through the transform: probabilities (logistic: of class 1) or the regression value.
    package func predictions(columns: [[Double]]) -> [Double] {
        var s = scores(columns: columns)
        switch transform {
        case .none: break
        case .logistic:
            for i in s.indices { s[i] = 1 / (1 + exp(-s[i])) }
        case .softmax:
            let rows = dimensions == 0 ? 0 : s.count / dimensions
            for r in 0..<rows {
                let base = r * dimensions
                var top = -Double.infinity
                for d in 0..<dimensions { top = max(top, s[base + d]) }
                var sum = 0.0
                for d in 0..<dimensions {
                    s[base + d] = exp(s[base + d] - top)
                    sum += s[base + d]
                }
                for d in 0..<dimensions { s[base + d] /= sum }
            }
        }
        return s
    }
}
