import _OpenCoreMLEngine

/// The least-squares (linear regression) objective on N rows of D features:
///
///     f(w, b) = (1/2N) Σᵢ (w·(xᵢ − μ) + b − yᵢ)² + (λ/2)·‖w‖²
///
/// w holds the D weights, b the intercept (never penalized; absent without one) and μ optional
/// feature centers (zero by default): centering with an intercept is the same model, better
/// conditioned, without a copy of the data. The variables are packed as w, then b.
///
/// An L1 term is not part of this smooth objective: `OWLQN` adds it (elastic net). Everything is
/// float64, so `LBFGS.valueNoise` is 0. One pass over the data per evaluation, a contiguous run of
/// rows per thread, partial sums added in a fixed order (the same result on any thread count).
package final class LeastSquaresObjective: DifferentiableObjective, @unchecked Sendable {
    package let rowCount: Int
    package let featureCount: Int
    package let fitsIntercept: Bool
    /// λ of the L2 term on w.
    package let l2: Double
    /// μ, or nil for none.
    package let centers: [Double]?
    package var dimension: Int { featureCount + (fitsIntercept ? 1 : 0) }

    private let features: [Double]
    private let targets: [Double]

    /// `features` holds `targets.count` rows of `featureCount` values (checked by the caller).
    package init(features: [Double], featureCount: Int, targets: [Double], l2: Double = 0, fitsIntercept: Bool = true,
                centers: [Double]? = nil) {
        precondition(featureCount > 0 && features.count == targets.count * featureCount)
        precondition(centers == nil || centers!.count == featureCount)
        rowCount = targets.count
        self.featureCount = featureCount
        self.fitsIntercept = fitsIntercept
        self.l2 = l2
        self.centers = centers
        self.features = features
        self.targets = targets
    }

    package func value(at x: [Double], gradient: inout [Double]) -> Double {
        precondition(x.count == dimension && gradient.count == dimension)
        let n = rowCount, d = featureCount
        // r = w·x + (b − w·μ) − y.
        var shift = fitsIntercept ? x[d] : 0
        if let centers {
            for j in 0..<d { shift -= x[j] * centers[j] }
        }
        let chunks = chunkCount(n)
        // Per chunk: Σ r·x (d values), then Σ r and Σ r².
        let stride = d + 2
        var partial = [Double](repeating: 0, count: chunks * stride)
        partial.withUnsafeMutableBufferPointer { partial in
            features.withUnsafeBufferPointer { features in
                targets.withUnsafeBufferPointer { targets in
                    x.withUnsafeBufferPointer { w in
                        parallelChunks(n, chunks: chunks) { chunk, rows in
                            let sums = partial.baseAddress! + chunk * stride
                            var residualSum = 0.0, squareSum = 0.0
                            for row in rows {
                                let line = features.baseAddress! + row * d
                                var prediction = shift
                                for j in 0..<d { prediction += w[j] * line[j] }
                                let r = prediction - targets[row]
                                for j in 0..<d { sums[j] += r * line[j] }
                                residualSum += r
                                squareSum += r * r
                            }
                            sums[d] = residualSum
                            sums[d + 1] = squareSum
                        }
                    }
                }
            }
        }
        let inverseN = 1 / Double(n)
        var residualSum = 0.0, squareSum = 0.0
        for chunk in 0..<chunks {
            residualSum += partial[chunk * stride + d]
            squareSum += partial[chunk * stride + d + 1]
        }
        var penalty = 0.0
        for j in 0..<d {
            var sum = 0.0
            for chunk in 0..<chunks { sum += partial[chunk * stride + j] }
            if let centers { sum -= residualSum * centers[j] }
            gradient[j] = sum * inverseN + l2 * x[j]
            penalty += x[j] * x[j]
        }
        if fitsIntercept { gradient[d] = residualSum * inverseN }
        return 0.5 * squareSum * inverseN + 0.5 * l2 * penalty
    }
}
