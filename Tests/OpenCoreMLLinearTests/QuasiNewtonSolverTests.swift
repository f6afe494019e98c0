import Foundation
import _OpenCoreMLLinear
import Testing

/// L-BFGS and OWL-QN on functions whose minimizers are known in closed form.
@Suite("L-BFGS and OWL-QN on known problems")
struct QuasiNewtonSolverTests {
    /// f(x, y) = (a − x)² + b(y − x²)², minimum 0 at (a, a²).
    struct Rosenbrock: DifferentiableObjective {
        var a = 1.0, b = 100.0
        var dimension: Int { 2 }
        func value(at x: [Double], gradient: inout [Double]) -> Double {
            let r = x[1] - x[0] * x[0]
            gradient[0] = -2 * (a - x[0]) - 4 * b * x[0] * r
            gradient[1] = 2 * b * r
            return (a - x[0]) * (a - x[0]) + b * r * r
        }
    }

    /// f(x) = ½ Σ hᵢeᵢ² + ½ Σ (eᵢ − eᵢ₊₁)² with e = x − x*: an ill-conditioned, coupled quadratic
    /// whose minimum is 0 at x*.
    struct CoupledQuadratic: DifferentiableObjective {
        var h: [Double]
        var minimizer: [Double]
        var dimension: Int { h.count }
        func value(at x: [Double], gradient: inout [Double]) -> Double {
            var f = 0.0
            for i in 0..<dimension {
                let e = x[i] - minimizer[i]
                f += 0.5 * h[i] * e * e
                gradient[i] = h[i] * e
            }
            for i in 0..<(dimension - 1) {
                let d = (x[i] - minimizer[i]) - (x[i + 1] - minimizer[i + 1])
                f += 0.5 * d * d
                gradient[i] += d
                gradient[i + 1] -= d
            }
            return f
        }
    }

    /// f(x) = ½‖x − c‖², whose L1-penalized minimizer is the soft threshold of c.
    struct Distance: DifferentiableObjective {
        var c: [Double]
        var dimension: Int { c.count }
        func value(at x: [Double], gradient: inout [Double]) -> Double {
            var f = 0.0
            for i in 0..<dimension {
                gradient[i] = x[i] - c[i]
                f += 0.5 * gradient[i] * gradient[i]
            }
            return f
        }
    }

    @Test func lbfgsFindsTheRosenbrockMinimum() {
        let solver = LBFGS(maxIterations: 500, gradientTolerance: 1e-10, relativeLossTolerance: 0)
        let result = solver.minimize(Rosenbrock(), from: [-1.2, 1])
        #expect(result.stop.isConverged, "stopped by \(result.stop)")
        #expect(abs(result.x[0] - 1) < 1e-6 && abs(result.x[1] - 1) < 1e-6, "ended at \(result.x)")
        #expect(result.value < 1e-12)
        #expect(result.iterations < 100, "\(result.iterations) iterations")
    }

    @Test func lbfgsFindsAShiftedRosenbrockMinimum() {
        let solver = LBFGS(maxIterations: 500, gradientTolerance: 1e-10, relativeLossTolerance: 0)
        let result = solver.minimize(Rosenbrock(a: -0.5, b: 30), from: [2, 2])
        #expect(abs(result.x[0] + 0.5) < 1e-6 && abs(result.x[1] - 0.25) < 1e-6, "ended at \(result.x)")
    }

    @Test func lbfgsSolvesAnIllConditionedQuadratic() {
        let n = 200
        let expected = (0..<n).map { sin(Double($0)) * 3 }
        let problem = CoupledQuadratic(h: (0..<n).map { pow(10, -2 + 4 * Double($0) / Double(n - 1)) }, minimizer: expected)
        let result = LBFGS(maxIterations: 2000, gradientTolerance: 1e-9, relativeLossTolerance: 0).minimize(problem, from: [Double](repeating: 0, count: n))
        #expect(result.stop == .gradientTolerance, "stopped by \(result.stop) after \(result.iterations)")
        let worst = zip(result.x, expected).map { abs($0 - $1) }.max()!
        #expect(worst < 1e-5, "largest error \(worst)")
    }

    @Test func lbfgsReportsEveryIterationAndStopsWhenAsked() {
        var seen: [MinimizationIteration] = []
        let result = LBFGS(maxIterations: 500, gradientTolerance: 0, relativeLossTolerance: 0).minimize(Rosenbrock(), from: [-1.2, 1]) { step in
            seen.append(step)
            return step.iteration < 5
        }
        #expect(result.stop == .stoppedByCallback)
        #expect(seen.map(\.iteration) == [1, 2, 3, 4, 5])
        #expect(result.iterations == 5 && result.x == seen.last!.x)
        // Every accepted step satisfies sufficient decrease, so the values fall.
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $1.value < $0.value })
    }

    @Test func lbfgsStopsAtTheIterationLimit() {
        let result = LBFGS(maxIterations: 3, gradientTolerance: 0).minimize(Rosenbrock(), from: [-1.2, 1])
        #expect(result.stop == .maxIterations && result.iterations == 3)
    }

    @Test func owlqnSoftThresholds() {
        let c = [3.0, -0.2, 0.7, -2.5, 0.05, 0, 1.0, -1.0]
        let lambda = 0.5
        // The last coordinate is unpenalized (like an intercept) and must land on c exactly.
        let weights = c.indices.map { $0 == c.count - 1 ? 0 : lambda }
        let result = OWLQN(maxIterations: 200, gradientTolerance: 1e-12, relativeLossTolerance: 0)
            .minimize(Distance(c: c), l1Weights: weights, from: [Double](repeating: 0, count: c.count))
        for i in c.indices {
            let expected = weights[i] == 0 ? c[i] : (abs(c[i]) <= lambda ? 0 : c[i] - lambda * (c[i] > 0 ? 1 : -1))
            if expected == 0 {
                #expect(result.x[i] == 0, "x[\(i)] = \(result.x[i]), want exactly 0")
            } else {
                #expect(abs(result.x[i] - expected) < 1e-9, "x[\(i)] = \(result.x[i]), want \(expected)")
            }
        }
    }

    @Test func owlqnWithoutPenaltyIsLBFGS() {
        let zero = [Double](repeating: 0, count: 2)
        let result = OWLQN(maxIterations: 500, gradientTolerance: 1e-10, relativeLossTolerance: 0).minimize(Rosenbrock(), l1Weights: zero, from: [-1.2, 1])
        #expect(abs(result.x[0] - 1) < 1e-6 && abs(result.x[1] - 1) < 1e-6, "ended at \(result.x)")
    }

    @Test func owlqnOnRosenbrockWithL1() {
        // F(x) = rosenbrock(x) + λ|x₀|: at the minimizer x₀ > 0, so x₁ = x₀² and
        // 2(x₀ − 1) + λ = 0 (the b-term vanishes there): x₀ = 1 − λ/2.
        let lambda = 0.4
        let result = OWLQN(maxIterations: 1000, gradientTolerance: 1e-10, relativeLossTolerance: 0)
            .minimize(Rosenbrock(), l1Weights: [lambda, 0], from: [-1.2, 1])
        let x0 = 1 - lambda / 2
        #expect(abs(result.x[0] - x0) < 1e-6 && abs(result.x[1] - x0 * x0) < 1e-6, "ended at \(result.x)")
    }
}
