import Foundation
import _OpenCoreMLEngine
import _OpenCoreMLLinear
import Testing
import _OpenCoreMLTestSupport

/// The logistic-regression objective against a plain float64 evaluation of its formula, and its
/// gradient against central finite differences of its own value.
@Suite("Softmax cross-entropy objective: value and gradient")
struct SoftmaxCrossEntropyObjectiveTests {
    struct Problem {
        var features: [Float]
        var labels: [Int]
        var n: Int, d: Int, k: Int
    }

    static func problem(n: Int, d: Int, k: Int, seed: UInt64) -> Problem {
        var random = TestRandom(seed: seed)
        return Problem(features: random.floats(n * d, -2, 2), labels: (0..<n).map { _ in random.int(0..<k) }, n: n, d: d, k: k)
    }

    /// Feature centers μ for the centered variants.
    static func centers(_ d: Int) -> [Double] { (0..<d).map { 0.3 * Double($0) - 0.5 } }

    /// (1/N) Σ [log Σ exp(z) − z_y] + (λ/2)‖W‖² with z = W·(x − μ) + b, term by term in float64.
    static func reference(_ p: Problem, _ x: [Double], l2: Double, intercept: Bool, centers: [Double]?) -> Double {
        var total = 0.0
        for i in 0..<p.n {
            var z = [Double](repeating: 0, count: p.k)
            for c in 0..<p.k {
                z[c] = intercept ? x[p.k * p.d + c] : 0
                for j in 0..<p.d { z[c] += x[c * p.d + j] * (Double(p.features[i * p.d + j]) - (centers?[j] ?? 0)) }
            }
            let largest = z.max()!
            total += log(z.map { exp($0 - largest) }.reduce(0, +)) + largest - z[p.labels[i]]
        }
        let squares = (0..<(p.k * p.d)).reduce(0.0) { $0 + x[$1] * x[$1] }
        return total / Double(p.n) + 0.5 * l2 * squares
    }

    @Test(arguments: [(0.0, true, false), (0.3, true, false), (0.05, false, false), (0.1, true, true)])
    func valueMatchesTheFormula(l2: Double, intercept: Bool, centered: Bool) {
        let p = Self.problem(n: 37, d: 5, k: 4, seed: 11)
        let centers = centered ? Self.centers(p.d) : nil
        let objective = SoftmaxCrossEntropyObjective(features: p.features, featureCount: p.d, labels: p.labels, classCount: p.k,
                                                     l2: l2, fitsIntercept: intercept, centers: centers)
        var random = TestRandom(seed: 12)
        let x = (0..<objective.dimension).map { _ in Double(random.float(-1, 1)) }
        var gradient = [Double](repeating: 0, count: objective.dimension)
        let value = objective.value(at: x, gradient: &gradient)
        let expected = Self.reference(p, x, l2: l2, intercept: intercept, centers: centers)
        #expect(abs(value - expected) <= 1e-6 * abs(expected), "value \(value), formula \(expected)")
        #expect(objective.dimension == p.k * p.d + (intercept ? p.k : 0))
    }

    @Test(arguments: [(0.0, true, false), (0.2, true, false), (0.1, false, false), (0.05, true, true)])
    func gradientMatchesFiniteDifferences(l2: Double, intercept: Bool, centered: Bool) {
        // Enough rows for the per-thread runs and the row blocks (of 4096/K rows here) to matter.
        let p = Self.problem(n: 3001, d: 7, k: 3, seed: 21)
        let objective = SoftmaxCrossEntropyObjective(features: p.features, featureCount: p.d, labels: p.labels, classCount: p.k,
                                                     l2: l2, fitsIntercept: intercept, centers: centered ? Self.centers(p.d) : nil)
        var random = TestRandom(seed: 22)
        var x = (0..<objective.dimension).map { _ in Double(random.float(-0.5, 0.5)) }
        var analytic = [Double](repeating: 0, count: objective.dimension)
        _ = objective.value(at: x, gradient: &analytic)
        var scratch = analytic
        // The objective rounds its logits to float32, so the step is not tiny; every variable is checked.
        let h = 1e-3
        var worst = 0.0
        for i in 0..<objective.dimension {
            let original = x[i]
            x[i] = original + h
            let plus = objective.value(at: x, gradient: &scratch)
            x[i] = original - h
            let minus = objective.value(at: x, gradient: &scratch)
            x[i] = original
            let numeric = (plus - minus) / (2 * h)
            let error = abs(numeric - analytic[i]) / max(abs(numeric), abs(analytic[i]), 1e-2)
            worst = max(worst, error)
            #expect(error < 2e-3, "variable \(i): analytic \(analytic[i]), numeric \(numeric)")
        }
        #expect(worst < 2e-3)
    }

    @Test func penaltyAddsLambdaTimesWeightsAndSparesIntercepts() {
        // The L2 term adds λ·W to the weight gradient and nothing to the intercepts.
        let p = Self.problem(n: 50, d: 4, k: 3, seed: 31)
        let with = SoftmaxCrossEntropyObjective(features: p.features, featureCount: p.d, labels: p.labels, classCount: p.k, l2: 1)
        let without = SoftmaxCrossEntropyObjective(features: p.features, featureCount: p.d, labels: p.labels, classCount: p.k, l2: 0)
        let x = (0..<with.dimension).map { Double($0 % 5) * 0.1 }
        var g1 = [Double](repeating: 0, count: with.dimension), g0 = g1
        _ = with.value(at: x, gradient: &g1)
        _ = without.value(at: x, gradient: &g0)
        for i in 0..<(p.k * p.d) { #expect(abs(g1[i] - g0[i] - x[i]) < 1e-6) }
        for i in (p.k * p.d)..<with.dimension { #expect(g1[i] == g0[i]) }
    }
}
