import Foundation
import _OpenCoreMLLinear
import Testing
import _OpenCoreMLTestSupport

/// `LogisticRegression` against scikit-learn's `LogisticRegression` converged tightly
/// (`Tests/Fixtures/make_logreg.py`, which also checks each reference's optimality conditions in
/// float64): coefficients, intercepts, objective and accuracies, and under L1 the same exact zeros.
@Suite("Logistic regression parity with scikit-learn")
struct LogisticRegressionParityTests {
    struct Fixture: Decodable {
        struct Split: Decodable {
            let features: [[Double]]
            let labels: [Int]
            var flat: [Float] { features.flatMap { $0.map(Float.init) } }
        }
        struct Case: Decodable {
            let name: String
            let penalty: String
            let C: Double?
            let lambda: Double
            let standardize: Bool
            let objective: Double
            let coefficients: [[Double]]
            let intercepts: [Double]
            let trainAccuracy: Double
            let testAccuracy: Double
            let zeroCount: Int?
        }
        let featureCount: Int
        let classCount: Int
        let train: Split
        let test: Split
        let cases: [Case]
    }

    static let fixture: Fixture = {
        let url = Fixtures.directory.deletingLastPathComponent().appendingPathComponent("logreg/logreg.json")
        return try! JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url))
    }()

    static func reference(_ name: String) -> Fixture.Case { fixture.cases.first { $0.name == name }! }

    /// Our fit of a case, converged as far as float32 logits allow.
    static func fit(_ reference: Fixture.Case) throws -> LogisticRegressionFit {
        let f = fixture
        let lambda = reference.C.map { LogisticRegression.Penalty.lambda(scikitLearnC: $0, sampleCount: f.train.labels.count) } ?? 0
        #expect(abs(lambda - reference.lambda) <= 1e-15 * max(1, lambda), "λ = 1/(C·N)")
        let penalty: LogisticRegression.Penalty = switch reference.penalty {
        case "l1": .l1(lambda)
        case "l2": .l2(lambda)
        default: .none
        }
        let solver = LogisticRegression(penalty: penalty, maxIterations: 2000, gradientTolerance: 1e-6, relativeLossTolerance: 0,
                                        standardizesFeatures: reference.standardize)
        return try solver.fit(features: f.train.flat, featureCount: f.featureCount, labels: f.train.labels, classCount: f.classCount)
    }

    @Test(arguments: ["l2", "l2_standardized", "none", "l1"])
    func matchesScikitLearn(_ name: String) throws {
        let reference = Self.reference(name)
        let result = try Self.fit(reference)
        let model = result.model
        #expect(result.stop.isConverged, "\(name): stopped by \(result.stop) after \(result.iterations) iterations")

        // Objective: same convention (mean loss + penalty), within float32 rounding of the logits.
        #expect(abs(result.loss - reference.objective) <= 2e-7 * reference.objective,
                "\(name): objective \(result.loss), scikit-learn \(reference.objective)")

        // Coefficients and intercepts within 1e-3 of the largest coefficient.
        let expectedWeights = reference.coefficients.flatMap { $0 }
        let scale = expectedWeights.map(abs).max()!
        let worstWeight = zip(model.weights, expectedWeights).map { abs(Double($0) - $1) }.max()!
        let worstIntercept = zip(model.intercepts, reference.intercepts).map { abs(Double($0) - $1) }.max()!
        #expect(worstWeight <= 1e-3 * scale, "\(name): weights differ by up to \(worstWeight) (scale \(scale))")
        #expect(worstIntercept <= 1e-3 * max(scale, 1), "\(name): intercepts differ by up to \(worstIntercept)")

        // The same predictions, up to one row at a decision boundary.
        let f = Self.fixture
        let train = try model.accuracy(f.train.flat, labels: f.train.labels)
        let test = try model.accuracy(f.test.flat, labels: f.test.labels)
        #expect(abs(train - reference.trainAccuracy) <= 1.0 / Double(f.train.labels.count) + 1e-12, "\(name): train accuracy \(train)")
        #expect(abs(test - reference.testAccuracy) <= 1.0 / Double(f.test.labels.count) + 1e-12, "\(name): test accuracy \(test)")

        if let zeroCount = reference.zeroCount {
            for (index, (ours, theirs)) in zip(model.weights, expectedWeights).enumerated() {
                #expect((ours == 0) == (theirs == 0), "\(name): weight \(index) is \(ours), scikit-learn \(theirs)")
            }
            #expect(model.weights.filter { $0 == 0 }.count == zeroCount)
        }
    }

    @Test func progressReportsEachIterationAndItsModel() throws {
        let f = Self.fixture
        var progress: [LogisticRegressionProgress] = []
        let solver = LogisticRegression(penalty: .l2(0.01), maxIterations: 50, gradientTolerance: 0)
        let result = try solver.fit(features: f.train.flat, featureCount: f.featureCount, labels: f.train.labels) { step in
            progress.append(step)
            return step.iteration < 6
        }
        #expect(result.stop == .stoppedByCallback && result.iterations == 6)
        #expect(progress.map(\.iteration) == Array(1...6))
        #expect(zip(progress, progress.dropFirst()).allSatisfy { $1.loss < $0.loss })
        #expect(progress.last!.model() == result.model)
        #expect(progress.last!.loss == result.loss)
        // Early models are better than chance and the loss starts below log K (the zero model's).
        #expect(progress[0].loss < log(Double(f.classCount)))
        #expect(try progress.last!.model().accuracy(f.train.flat, labels: f.train.labels) > 0.5)
    }

    @Test func probabilitiesAreTheSoftmaxOfTheScores() throws {
        let f = Self.fixture
        let model = try Self.fit(Self.reference("l2")).model
        let rows = Array(f.test.flat.prefix(5 * f.featureCount))
        let p = try model.probabilities(rows), z = try model.scores(rows), predicted = try model.predict(rows)
        for row in 0..<5 {
            let line = (0..<f.classCount).map { Double(z[row * f.classCount + $0]) }
            let sum = line.map { exp($0 - line.max()!) }.reduce(0, +)
            for c in 0..<f.classCount {
                #expect(abs(Double(p[row * f.classCount + c]) - exp(line[c] - line.max()!) / sum) < 1e-6)
            }
            #expect(predicted[row] == line.indices.max { line[$0] < line[$1] }!)
        }
    }
}
