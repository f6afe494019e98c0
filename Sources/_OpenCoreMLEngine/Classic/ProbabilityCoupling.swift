import Foundation

/// Probabilities from a one-vs-one classifier's pairwise decision values, as LIBSVM computes them:
/// Platt's sigmoid per class pair, then the pairwise probabilities coupled into one distribution.
package enum ProbabilityCoupling {
    /// Pairwise probabilities are kept within [this, 1 − this] (LIBSVM's bound).
    package static let minimumProbability = 1e-7

    /// Platt's sigmoid 1 / (1 + e^(d·A + B)), the probability that the pair's first class wins
    /// given decision value `d`; computed without overflow.
    package static func plattSigmoid(_ decision: Double, a: Double, b: Double) -> Double {
        let f = decision * a + b
        if f >= 0 {
            let e = exp(-f)
            return e / (1 + e)
        }
        return 1 / (1 + exp(f))
    }

    /// One probability per class from `pairwise`, a `classCount` × `classCount` row-major matrix
    /// whose entry (i, j), i ≠ j, is the probability that class i beats class j (entries (j, i)
    /// being 1 − (i, j)); the diagonal is ignored.
    ///
    /// Coupled by the second method of Wu, Lin & Weng (2004), "Probability estimates for
    /// multi-class classification by pairwise coupling", iterated as LIBSVM's
    /// `multiclass_probability` does: from the uniform distribution, at most max(100, k) sweeps,
    /// stopping once every component of Qp is within 0.005/k of pᵀQp. Two classes are coupled
    /// too, as scikit-learn's LIBSVM does (LIBSVM 3.25 and later take the pairwise probability as
    /// it is): the early stop leaves them up to a few tenths of a percent from it, and
    /// scikit-learn's `predict_proba` reports exactly that.
    package static func couple(pairwise r: [Double], classCount k: Int) -> [Double] {
        precondition(r.count == k * k, "the pairwise matrix must be k × k")
        if k == 1 { return [1] }
        var q = [Double](repeating: 0, count: k * k)
        for t in 0..<k {
            for j in 0..<k where j != t {
                q[t * k + t] += r[j * k + t] * r[j * k + t]
                q[t * k + j] = -r[j * k + t] * r[t * k + j]
            }
        }
        var p = [Double](repeating: 1 / Double(k), count: k)
        var qp = [Double](repeating: 0, count: k)
        let tolerance = 0.005 / Double(k)
        for _ in 0..<max(100, k) {
            var pqp = 0.0
            for t in 0..<k {
                var sum = 0.0
                for j in 0..<k { sum += q[t * k + j] * p[j] }
                qp[t] = sum
                pqp += p[t] * sum
            }
            var largestError = 0.0
            for t in 0..<k {
                let error = abs(qp[t] - pqp)
                if !(error <= largestError) { largestError = error }
            }
            if largestError < tolerance { break }
            for t in 0..<k {
                let diagonal = q[t * k + t]
                let step = (-qp[t] + pqp) / diagonal
                p[t] += step
                pqp = (pqp + step * (step * diagonal + 2 * qp[t])) / ((1 + step) * (1 + step))
                for j in 0..<k {
                    qp[j] = (qp[j] + step * q[t * k + j]) / (1 + step)
                    p[j] /= 1 + step
                }
            }
        }
        return p
    }
}
