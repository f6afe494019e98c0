import Foundation

/// How well predicted class indices match the true ones: accuracy, per-class precision, recall, F1 and
/// support, their macro and support-weighted averages, and the confusion matrix. Encoded as JSON for
/// `--json`; `renderText()` for a terminal. A class never predicted has precision 0, one never present
/// has recall 0 (as scikit-learn reports them).
struct ClassificationReport: Encodable {
    struct ClassMetrics: Encodable, Equatable {
        var name: String
        var precision: Double
        var recall: Double
        var f1: Double
        /// How many samples truly belong to the class.
        var support: Int
    }

    struct Average: Encodable, Equatable {
        var precision: Double
        var recall: Double
        var f1: Double
    }

    var sampleCount: Int
    var correctCount: Int
    /// `correctCount / sampleCount`, 0 when there are no samples.
    var accuracy: Double
    var classes: [ClassMetrics]
    /// The unweighted mean over classes.
    var macroAverage: Average
    /// The mean over classes weighted by support.
    var weightedAverage: Average
    var classNames: [String]
    /// `confusionMatrix[t][p]`: how many samples of true class `t` were predicted as class `p`.
    var confusionMatrix: [[Int]]

    /// Labels are indices into `classNames`; one outside it throws, naming the sample.
    init(trueLabels: [Int], predictedLabels: [Int], classNames: [String]) throws {
        precondition(trueLabels.count == predictedLabels.count, "one prediction per true label")
        let n = classNames.count
        var matrix = [[Int]](repeating: [Int](repeating: 0, count: n), count: n)
        for (index, (truth, predicted)) in zip(trueLabels, predictedLabels).enumerated() {
            for (label, kind) in [(truth, "true"), (predicted, "predicted")] where !(0..<n).contains(label) {
                throw CLIError.model("sample \(index): \(kind) label \(label) is not one of the \(n) classes (0…\(n - 1))")
            }
            matrix[truth][predicted] += 1
        }
        let correct = (0..<n).reduce(0) { $0 + matrix[$1][$1] }
        var classes: [ClassMetrics] = []
        for label in 0..<n {
            let hits = Double(matrix[label][label])
            let support = matrix[label].reduce(0, +)
            let predictedCount = matrix.reduce(0) { $0 + $1[label] }
            let precision = predictedCount > 0 ? hits / Double(predictedCount) : 0
            let recall = support > 0 ? hits / Double(support) : 0
            let f1 = precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0
            classes.append(ClassMetrics(name: classNames[label], precision: precision, recall: recall, f1: f1, support: support))
        }
        func average(_ weight: (ClassMetrics) -> Double) -> Average {
            let total = classes.reduce(0) { $0 + weight($1) }
            guard total > 0 else { return Average(precision: 0, recall: 0, f1: 0) }
            func mean(_ value: (ClassMetrics) -> Double) -> Double { classes.reduce(0) { $0 + weight($1) * value($1) } / total }
            return Average(precision: mean(\.precision), recall: mean(\.recall), f1: mean(\.f1))
        }
        self.sampleCount = trueLabels.count
        self.correctCount = correct
        self.accuracy = trueLabels.isEmpty ? 0 : Double(correct) / Double(trueLabels.count)
        self.classes = classes
        self.macroAverage = average { _ in 1 }
        self.weightedAverage = average { Double($0.support) }
        self.classNames = classNames
        self.confusionMatrix = matrix
    }

    /// The accuracy line, the per-class table and the confusion matrix.
    func renderText() -> String {
        var lines = ["accuracy \(percent(accuracy)) (\(grouped(correctCount)) of \(grouped(sampleCount)))", ""]

        var metrics = TextTable(["class", "precision", "recall", "F1", "support"], alignments: [.left, .right, .right, .right, .right])
        for item in classes {
            metrics.append([item.name, fraction(item.precision), fraction(item.recall), fraction(item.f1), grouped(item.support)])
        }
        metrics.append(["", "", "", "", ""])
        for (name, average) in [("macro average", macroAverage), ("weighted average", weightedAverage)] {
            metrics.append([name, fraction(average.precision), fraction(average.recall), fraction(average.f1), grouped(sampleCount)])
        }
        lines.append(metrics.render())
        lines.append("")

        // Long names would make every column wide: number the classes instead.
        let numbered = classNames.contains { displayWidth($0) > 6 }
        lines.append("confusion matrix (rows: true class, columns: predicted class)")
        let columnHeaders = numbered ? classNames.indices.map(String.init) : classNames
        var matrix = TextTable([""] + columnHeaders, alignments: [.left] + classNames.map { _ in .right })
        for (label, row) in confusionMatrix.enumerated() {
            matrix.append([numbered ? "\(label) \(classNames[label])" : classNames[label]] + row.map(grouped))
        }
        lines.append(matrix.render())
        return lines.joined(separator: "\n")
    }

    private func fraction(_ value: Double) -> String { String(format: "%.4f", value) }
    private func percent(_ value: Double) -> String { String(format: "%.2f%%", value * 100) }
}
