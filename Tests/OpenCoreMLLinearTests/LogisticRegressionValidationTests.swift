import Foundation
import _OpenCoreMLLinear
import Testing

/// Bad hyperparameters and bad data: one clear `SolverError` naming what and where.
@Suite("Logistic regression: bad hyperparameters and data")
struct LogisticRegressionValidationTests {
    static let features: [Float] = [0, 1, 1, 0, 2, 2, -1, 0.5, 0.3, -2, 1, 1]  // 6 rows × 2
    static let labels = [0, 1, 2, 0, 1, 2]

    static func error(_ solver: LogisticRegression = LogisticRegression(), features: [Float] = features, featureCount: Int = 2,
                      labels: [Int] = labels, classCount: Int? = nil) -> SolverError? {
        do {
            _ = try solver.fit(features: features, featureCount: featureCount, labels: labels, classCount: classCount)
            return nil
        } catch let error as SolverError {
            return error
        } catch {
            Issue.record("unexpected error type: \(error)")
            return nil
        }
    }

    static func expectError(_ error: SolverError?, location: String, containing text: String,
                            sourceLocation: SourceLocation = #_sourceLocation) {
        guard let error else {
            Issue.record("no error thrown", sourceLocation: sourceLocation)
            return
        }
        #expect(error.location == location, sourceLocation: sourceLocation)
        #expect(error.message.contains(text), "message: \(error.message)", sourceLocation: sourceLocation)
    }

    @Test func goodInputFits() {
        #expect(Self.error() == nil)
    }

    @Test func negativeOrNonFinitePenalty() {
        Self.expectError(Self.error(LogisticRegression(penalty: .l2(-1))), location: "LogisticRegression.penalty", containing: "got -1.0")
        Self.expectError(Self.error(LogisticRegression(penalty: .l1(-0.5))), location: "LogisticRegression.penalty", containing: "≥ 0")
        Self.expectError(Self.error(LogisticRegression(penalty: .l2(.nan))), location: "LogisticRegression.penalty", containing: "nan")
        Self.expectError(Self.error(LogisticRegression(penalty: .l1(.infinity))), location: "LogisticRegression.penalty", containing: "inf")
    }

    @Test func iterationAndToleranceLimits() {
        Self.expectError(Self.error(LogisticRegression(maxIterations: 0)), location: "LogisticRegression.maxIterations", containing: "got 0")
        Self.expectError(Self.error(LogisticRegression(gradientTolerance: -1e-4)), location: "LogisticRegression.gradientTolerance", containing: "-0.0001")
        Self.expectError(Self.error(LogisticRegression(relativeLossTolerance: .nan)), location: "LogisticRegression.relativeLossTolerance", containing: "nan")
        Self.expectError(Self.error(LogisticRegression(historySize: 0)), location: "LogisticRegression.historySize", containing: "got 0")
    }

    @Test func nonFiniteFeatureNamesRowAndColumn() {
        var features = Self.features
        features[7] = .nan
        Self.expectError(Self.error(features: features), location: "LogisticRegression.fit", containing: "row 3, column 1 is nan")
        features[7] = -.infinity
        Self.expectError(Self.error(features: features), location: "LogisticRegression.fit", containing: "row 3, column 1 is -inf")
    }

    @Test func labelsOutOfRange() {
        Self.expectError(Self.error(labels: [0, 1, 2, 0, -1, 2]), location: "LogisticRegression.fit", containing: "labels[4] is -1")
        Self.expectError(Self.error(labels: [0, 1, 3, 0, 1, 2], classCount: 3), location: "LogisticRegression.fit",
                         containing: "labels[2] is 3, outside the classes 0..<3")
        Self.expectError(Self.error(labels: [0, 0, 0, 0, 0, 0]), location: "LogisticRegression.fit", containing: "at least 2 classes")
    }

    @Test func shapeMismatches() {
        Self.expectError(Self.error(features: Array(Self.features.dropLast())), location: "LogisticRegression.fit", containing: "11 feature values for 6 labels")
        Self.expectError(Self.error(featureCount: 0), location: "LogisticRegression.fit", containing: "featureCount must be at least 1")
        Self.expectError(Self.error(features: [], labels: []), location: "LogisticRegression.fit", containing: "no training rows")
    }

    @Test func predictionOnWrongWidthThrows() throws {
        let model = try LogisticRegression().fit(features: Self.features, featureCount: 2, labels: Self.labels).model
        #expect(throws: SolverError.self) { try model.predict([1, 2, 3]) }
        #expect(throws: SolverError.self) { try model.accuracy([1, 2], labels: [0, 1]) }
    }
}

/// The elastic-net penalty: L1 and L2 together (OWL-QN with the L2 term in the smooth part).
@Suite("Logistic regression: elastic net")
struct LogisticRegressionElasticNetTests {
    /// At the solution the subgradient conditions hold: for a nonzero weight ∂f/∂w + λ₁·sign(w) = 0,
    /// for a zero one |∂f/∂w| ≤ λ₁, where f is the mean cross-entropy plus (λ₂/2)‖W‖², computed
    /// here independently of the solver in float64; and both terms matter (the fit differs from the
    /// L1-only and L2-only fits).
    @Test func elasticNetSolutionIsOptimal() throws {
        let features = LogisticRegressionValidationTests.features, labels = LogisticRegressionValidationTests.labels
        let l1 = 0.02, l2 = 0.5
        let solver = LogisticRegression(penalty: .elasticNet(l1: l1, l2: l2), maxIterations: 500, gradientTolerance: 1e-7,
                                        relativeLossTolerance: 0)
        let model = try solver.fit(features: features, featureCount: 2, labels: labels).model
        let n = labels.count, k = 3, d = 2
        var gradient = [Double](repeating: 0, count: k * d)
        for row in 0..<n {
            let x = (0..<d).map { Double(features[row * d + $0]) }
            let z = (0..<k).map { c in (0..<d).map { Double(model.weights[c * d + $0]) * x[$0] }.reduce(Double(model.intercepts[c]), +) }
            let top = z.max()!, e = z.map { exp($0 - top) }, sum = e.reduce(0, +)
            for c in 0..<k {
                let g = e[c] / sum - (labels[row] == c ? 1 : 0)
                for j in 0..<d { gradient[c * d + j] += g * x[j] / Double(n) }
            }
        }
        for i in 0..<(k * d) {
            let w = Double(model.weights[i]), g = gradient[i] + l2 * w
            if w != 0 {
                #expect(abs(g + l1 * (w > 0 ? 1 : -1)) <= 1e-4, "weight \(i) = \(w): \(g)")
            } else {
                #expect(abs(g) <= l1 + 1e-4, "zero weight \(i): \(g)")
            }
        }
        let l1Only = try LogisticRegression(penalty: .l1(l1), maxIterations: 500).fit(features: features, featureCount: 2, labels: labels).model
        let l2Only = try LogisticRegression(penalty: .l2(l2), maxIterations: 500).fit(features: features, featureCount: 2, labels: labels).model
        #expect(model != l1Only && model != l2Only)
    }

    @Test func badElasticNetStrengths() {
        LogisticRegressionValidationTests.expectError(
            LogisticRegressionValidationTests.error(LogisticRegression(penalty: .elasticNet(l1: 0.1, l2: -1))),
            location: "LogisticRegression.penalty", containing: "got -1.0")
        LogisticRegressionValidationTests.expectError(
            LogisticRegressionValidationTests.error(LogisticRegression(penalty: .elasticNet(l1: .nan, l2: 1))),
            location: "LogisticRegression.penalty", containing: "nan")
    }
}
