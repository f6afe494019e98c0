import _OpenCoreMLKernels

/// A fitted multinomial logistic regression: class k's score for a row x is `W[k]·x + b[k]`; the
/// predicted class is the highest score and the probabilities are the softmax of the scores.
/// Weights are in the units of the original features (a standardization used in training is
/// folded into them).
package struct LogisticRegressionModel: Sendable, Equatable {
    package let featureCount: Int
    package let classCount: Int
    /// K×D, row k holding class k's weights.
    package let weights: [Float]
    /// K intercepts (zeros when fitted without one).
    package let intercepts: [Float]

    package init(featureCount: Int, classCount: Int, weights: [Float], intercepts: [Float]) {
        precondition(weights.count == featureCount * classCount && intercepts.count == classCount)
        self.featureCount = featureCount
        self.classCount = classCount
        self.weights = weights
        self.intercepts = intercepts
    }

    /// The N×K scores of the rows in `features` (N×D, row-major).
    package func scores(_ features: [Float]) throws -> [Float] {
        let n = try rowCount(of: features)
        var scores = [Float](repeating: 0, count: n * classCount)
        guard n > 0 else { return scores }
        features.withUnsafeBufferPointer { x in
            weights.withUnsafeBufferPointer { w in
                scores.withUnsafeMutableBufferPointer { z in
                    ocm_sgemm(false, true, Int32(n), Int32(classCount), Int32(featureCount), 1, x.baseAddress!, Int32(featureCount),
                              w.baseAddress!, Int32(featureCount), 0, z.baseAddress!, Int32(classCount))
                    intercepts.withUnsafeBufferPointer { b in
                        ocm_add_row_vector(z.baseAddress!, b.baseAddress!, Int32(n), Int32(classCount), Int32(classCount))
                    }
                }
            }
        }
        return scores
    }

    /// The N×K class probabilities of the rows in `features`.
    package func probabilities(_ features: [Float]) throws -> [Float] {
        var p = try scores(features)
        let n = p.count / classCount
        if n > 0 {
            p.withUnsafeMutableBufferPointer {
                ocm_softmax_rows($0.baseAddress!, $0.baseAddress!, Int32(n), Int32(classCount), Int32(classCount), Int32(classCount))
            }
        }
        return p
    }

    /// The predicted class of each row (the first of tied scores).
    package func predict(_ features: [Float]) throws -> [Int] {
        let z = try scores(features)
        return stride(from: 0, to: z.count, by: classCount).map { base in
            var best = 0
            for c in 1..<classCount where z[base + c] > z[base + best] { best = c }
            return best
        }
    }

    /// The fraction of rows whose predicted class equals their label.
    package func accuracy(_ features: [Float], labels: [Int]) throws -> Double {
        let predicted = try predict(features)
        guard predicted.count == labels.count else {
            throw SolverError("LogisticRegressionModel", "\(labels.count) labels for \(predicted.count) rows")
        }
        guard !labels.isEmpty else { return 0 }
        return Double(zip(predicted, labels).filter { $0 == $1 }.count) / Double(labels.count)
    }

    private func rowCount(of features: [Float]) throws -> Int {
        guard features.count % featureCount == 0 else {
            throw SolverError("LogisticRegressionModel", "\(features.count) feature values are not whole rows of \(featureCount)")
        }
        return features.count / featureCount
    }
}
