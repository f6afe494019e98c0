import Foundation
import _OpenCoreMLLinear
import Testing
import _OpenCoreMLTestSupport

/// `LinearRegression` (least squares, ridge, lasso, elastic net) against scikit-learn's `Ridge`,
/// `Lasso` and `ElasticNet` converged tightly (`Scripts/make_linear_fixtures.py`, which checks each
/// reference's optimality conditions and that its zeros are robust), the objective's gradient by
/// finite differences, and bad hyperparameters and data.
@Suite("Linear regression: parity with scikit-learn, gradient, validation")
struct LinearRegressionTests {
    struct Fixture: Decodable {
        struct Case: Decodable {
            let name: String
            let l1: Double
            let l2: Double
            let standardize: Bool
            let objective: Double
            let coefficients: [Double]
            let intercept: Double
            let zeroCount: Int
        }
        let featureCount: Int
        let features: [[Double]]
        let targets: [Double]
        let cases: [Case]
    }

    static let fixture: Fixture = {
        let url = Fixtures.directory.deletingLastPathComponent().appendingPathComponent("linear/solver.json")
        return try! JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url))
    }()

    @Test(arguments: ["ridge", "ridge_standardized", "lasso", "lasso_standardized", "elasticnet", "elasticnet_standardized"])
    func matchesScikitLearn(_ name: String) throws {
        let f = Self.fixture
        let reference = try #require(f.cases.first { $0.name == name })
        let solver = LinearRegression(l1: reference.l1, l2: reference.l2,
                                      solver: QuasiNewtonSettings(maxIterations: 10_000, gradientTolerance: 1e-11, relativeLossTolerance: 0),
                                      standardizesFeatures: reference.standardize)
        let fit = try solver.fit(features: f.features.flatMap { $0 }, featureCount: f.featureCount, targets: f.targets)
        #expect(fit.stop.isConverged, "\(name): stopped by \(fit.stop) after \(fit.iterations) iterations")
        #expect(abs(fit.loss - reference.objective) <= 1e-10 * reference.objective,
                "\(name): objective \(fit.loss), scikit-learn \(reference.objective)")
        // Each coefficient within 1e-8 of its size in the data's units (|w|·std(x) ≥ 0.5 for the
        // nonzero ones), the intercept within 1e-6 of the targets' scale.
        for j in 0..<f.featureCount {
            let column = f.features.map { $0[j] }
            let mean = column.reduce(0, +) / Double(column.count)
            let std = (column.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(column.count)).squareRoot()
            let difference = abs(fit.model.weights[j] - reference.coefficients[j]) * std
            #expect(difference <= 1e-8, "\(name): weight \(j) is \(fit.model.weights[j]), scikit-learn \(reference.coefficients[j])")
            #expect((fit.model.weights[j] == 0) == (reference.coefficients[j] == 0),
                    "\(name): weight \(j) is \(fit.model.weights[j]), scikit-learn \(reference.coefficients[j])")
        }
        #expect(fit.model.weights.filter { $0 == 0 }.count == reference.zeroCount)
        #expect(abs(fit.model.intercept - reference.intercept) <= 1e-6 * 10, "\(name): intercept \(fit.model.intercept), scikit-learn \(reference.intercept)")
    }

    /// ∂f/∂xᵢ against central differences (the objective is quadratic, so they are exact up to
    /// rounding), with and without centers and intercept.
    @Test(arguments: [(true, true), (true, false), (false, true), (false, false)])
    func gradientMatchesFiniteDifferences(_ options: (intercept: Bool, centered: Bool)) {
        let f = Self.fixture
        let rows = Array(f.features.prefix(30)), targets = Array(f.targets.prefix(30))
        let means: [Double] = (0..<f.featureCount).map { (j: Int) -> Double in rows.map { $0[j] }.reduce(0, +) / 30 }
        let centers: [Double]? = options.centered ? means : nil
        let objective = LeastSquaresObjective(features: rows.flatMap { $0 }, featureCount: f.featureCount, targets: targets, l2: 0.3,
                                              fitsIntercept: options.intercept, centers: centers)
        let x: [Double] = (0..<objective.dimension).map { (i: Int) -> Double in
            let sign: Double = i % 2 == 0 ? 1 : -1
            return 0.1 * Double(i + 1) * sign
        }
        var gradient = [Double](repeating: 0, count: objective.dimension), scratch = gradient
        let value = objective.value(at: x, gradient: &gradient)
        // f by hand: (1/2N) Σ r² + (λ/2)‖w‖².
        var expected = 0.0
        for (row, y) in zip(rows, targets) {
            var prediction = options.intercept ? x[f.featureCount] : 0
            for j in 0..<f.featureCount { prediction += x[j] * (row[j] - (centers?[j] ?? 0)) }
            expected += (prediction - y) * (prediction - y) / 60
        }
        expected += 0.15 * x[0..<f.featureCount].map { $0 * $0 }.reduce(0, +)
        #expect(abs(value - expected) <= 1e-12 * abs(expected))
        for i in 0..<objective.dimension {
            let h = 1e-4
            var plus = x, minus = x
            plus[i] += h
            minus[i] -= h
            let numeric = (objective.value(at: plus, gradient: &scratch) - objective.value(at: minus, gradient: &scratch)) / (2 * h)
            #expect(abs(numeric - gradient[i]) <= 1e-6 * max(1, abs(gradient[i])), "∂f/∂x\(i): \(gradient[i]), numeric \(numeric)")
        }
    }

    @Test func progressReportsEachIterationAndItsModel() throws {
        let f = Self.fixture
        var steps: [LinearRegressionProgress] = []
        let fit = try LinearRegression(l2: 0.1, solver: QuasiNewtonSettings(gradientTolerance: 0), standardizesFeatures: true)
            .fit(features: f.features.flatMap { $0 }, featureCount: f.featureCount, targets: f.targets) { step in
                steps.append(step)
                return step.iteration < 3
            }
        #expect(fit.stop == .stoppedByCallback && fit.iterations == 3)
        #expect(steps.map(\.iteration) == [1, 2, 3])
        #expect(zip(steps, steps.dropFirst()).allSatisfy { $1.loss < $0.loss })
        #expect(steps.last!.model() == fit.model)
        let predictions = try fit.model.predict(f.features.flatMap { $0 })
        let byHand = f.features.map { row in zip(row, fit.model.weights).map { $0 * $1 }.reduce(fit.model.intercept, +) }
        #expect(zip(predictions, byHand).allSatisfy { abs($0 - $1) <= 1e-9 * max(1, abs($1)) })
    }

    @Test func badHyperparametersAndData() {
        func error(_ solver: LinearRegression = LinearRegression(), features: [Double] = [1, 2, 3, 4], featureCount: Int = 2,
                   targets: [Double] = [1, 2]) -> SolverError? {
            do {
                _ = try solver.fit(features: features, featureCount: featureCount, targets: targets)
                return nil
            } catch {
                return error as? SolverError
            }
        }
        #expect(error() == nil)
        #expect(error(LinearRegression(l1: -1))?.location == "LinearRegression.l1")
        #expect(error(LinearRegression(l2: .nan))?.description.contains("nan") == true)
        #expect(error(LinearRegression(l2: .infinity))?.location == "LinearRegression.l2")
        #expect(error(LinearRegression(solver: QuasiNewtonSettings(maxIterations: 0)))?.location == "LinearRegression.maxIterations")
        #expect(error(LinearRegression(solver: QuasiNewtonSettings(gradientTolerance: -1)))?.location == "LinearRegression.gradientTolerance")
        #expect(error(LinearRegression(solver: QuasiNewtonSettings(historySize: 0)))?.location == "LinearRegression.historySize")
        #expect(error(LinearRegression(solver: QuasiNewtonSettings(relativeLossTolerance: .nan)))?.location == "LinearRegression.relativeLossTolerance")
        #expect(error(targets: [])?.message.contains("no training rows") == true)
        #expect(error(features: [1, 2, 3])?.message.contains("expected 2 rows × 2 = 4") == true)
        #expect(error(targets: [1, .nan])?.message == "targets: row 1 is nan, not a finite number")
        #expect(error(features: [1, 2, .infinity, 4])?.message == "features: row 1, column 0 is inf, not a finite number")
        #expect(error(featureCount: 0)?.message.contains("featureCount must be at least 1") == true)
    }
}
