import Foundation
import Testing
import _OpenCoreMLTestSupport
import OpenCreateML

struct MLClassifierMetricsTests {
    /// Ten samples of three classes; every number below is worked out by hand from this confusion matrix:
    ///            predicted A  B  C
    ///   true A (4)          2  1  1
    ///   true B (3)          1  2  0
    ///   true C (3)          0  1  2
    private let truth = [0, 0, 0, 0, 1, 1, 1, 2, 2, 2]
    private let predicted = [0, 0, 1, 2, 1, 1, 0, 2, 2, 1]

    @Test func metricsOfAHandWorkedExample() throws {
        let report = try MLClassifierMetrics(classLabels: ["A", "B", "C"], trueLabels: truth, predictedLabels: predicted)
        #expect(report.confusionMatrix == [[2, 1, 1], [1, 2, 0], [0, 1, 2]])
        #expect(report.exampleCount == 10 && report.correctCount == 6)
        #expect(abs(report.accuracy - 0.6) < 1e-12)

        // precision = hits / column total, recall = hits / row total, F1 = their harmonic mean.
        let expected: [(precision: Double, recall: Double, f1: Double, support: Int)] = [
            (2.0 / 3, 2.0 / 4, 4.0 / 7, 4),
            (2.0 / 4, 2.0 / 3, 4.0 / 7, 3),
            (2.0 / 3, 2.0 / 3, 2.0 / 3, 3),
        ]
        for (metrics, want) in zip(report.classes, expected) {
            #expect(abs(metrics.precision - want.precision) < 1e-12)
            #expect(abs(metrics.recall - want.recall) < 1e-12)
            #expect(abs(metrics.f1 - want.f1) < 1e-12)
            #expect(metrics.support == want.support)
        }
        #expect(report.classes.map(\.label) == ["A", "B", "C"])
        #expect(abs(report.macroAverage.precision - 11.0 / 18) < 1e-12)
        #expect(abs(report.macroAverage.recall - 11.0 / 18) < 1e-12)
        #expect(abs(report.macroAverage.f1 - 38.0 / 63) < 1e-12)
        #expect(abs(report.weightedAverage.precision - 37.0 / 60) < 1e-12)
        #expect(abs(report.weightedAverage.recall - 0.6) < 1e-12)
        #expect(abs(report.weightedAverage.f1 - 0.6) < 1e-12)
    }

    @Test func classesNeverPredictedOrPresentScoreZero() throws {
        let report = try MLClassifierMetrics(classLabels: ["x", "y", "z"], trueLabels: [0, 0, 1], predictedLabels: [0, 1, 0])
        let z = report.classes[2]
        #expect(z.label == "z" && z.precision == 0 && z.recall == 0 && z.f1 == 0 && z.support == 0)
        #expect(report.classes[1].precision == 0 && report.classes[1].recall == 0)
        #expect(report.classes[0].precision == 0.5 && report.classes[0].recall == 0.5)

        let empty = try MLClassifierMetrics(classLabels: ["x"], trueLabels: [Int](), predictedLabels: [Int]())
        #expect(empty.accuracy == 0 && empty.confusionMatrix == [[0]])
    }

    @Test func labelsOutsideTheClassesThrow() {
        expectMessage(errorMessage { _ = try MLClassifierMetrics(classLabels: ["a", "b"], trueLabels: [0, 3], predictedLabels: [0, 1]) },
                      contains: ["example 1", "true label 3", "2 classes"])
        expectMessage(errorMessage { _ = try MLClassifierMetrics(classLabels: ["a", "b"], trueLabels: [0], predictedLabels: [-1]) },
                      contains: ["example 0", "predicted label -1"])
    }

    @Test func jsonHasTheNumbers() throws {
        let report = try MLClassifierMetrics(classLabels: ["A", "B", "C"], trueLabels: truth, predictedLabels: predicted)
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(report)) as! [String: Any]
        #expect((object["accuracy"] as? NSNumber)?.doubleValue == report.accuracy)
        #expect((object["confusionMatrix"] as? [[NSNumber]])?.map { $0.map(\.intValue) } == [[2, 1, 1], [1, 2, 0], [0, 1, 2]])
        let classes = object["classes"] as? [[String: Any]]
        #expect(classes?.count == 3)
        #expect(classes?[1]["name"] as? String == "B")
        #expect((classes?[1]["support"] as? NSNumber)?.intValue == 3)
        #expect(object["macroAverage"] is [String: Any] && object["weightedAverage"] is [String: Any])
    }
}

extension MLClassifierMetricsTests {
    /// Create ML's tables hold the same numbers as the matrix and the per-class metrics.
    @Test func confusionAndPrecisionRecallTables() throws {
        let report = try MLClassifierMetrics(classLabels: ["A", "B", "C"], trueLabels: truth, predictedLabels: predicted)
        let confusion = report.confusion
        #expect(Array(confusion.columnNames) == ["True Label", "Predicted", "Count"])
        #expect(confusion.size.rows == 9)
        let counts = try #require(confusion["Count", Int.self])
        #expect(Array(counts) == [2, 1, 1, 1, 2, 0, 0, 1, 2])
        #expect(confusion["True Label", String.self].map(Array.init) == ["A", "A", "A", "B", "B", "B", "C", "C", "C"])
        #expect(confusion["Predicted", String.self].map(Array.init) == ["A", "B", "C", "A", "B", "C", "A", "B", "C"])

        let table = report.precisionRecall
        #expect(Array(table.columnNames) == ["Class", "Precision", "Recall"])
        #expect(table["Class", String.self].map(Array.init) == ["A", "B", "C"])
        let precision = try #require(table["Precision", Double.self].map(Array.init))
        let recall = try #require(table["Recall", Double.self].map(Array.init))
        for (got, want) in zip(precision, [2.0 / 3, 2.0 / 4, 2.0 / 3]) { #expect(abs(got - want) < 1e-12) }
        for (got, want) in zip(recall, [2.0 / 4, 2.0 / 3, 2.0 / 3]) { #expect(abs(got - want) < 1e-12) }
    }
}
