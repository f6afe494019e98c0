import Foundation
import OpenCreateML

extension MLClassifierMetrics {
    /// The accuracy line, the per-class table and the confusion matrix.
    func renderText() -> String {
        var lines = ["accuracy \(percent(accuracy)) (\(grouped(correctCount)) of \(grouped(exampleCount)))", ""]

        var metrics = TextTable(["class", "precision", "recall", "F1", "support"], alignments: [.left, .right, .right, .right, .right])
        for item in classes {
            metrics.append([item.label.terminalEscaped(), fraction(item.precision), fraction(item.recall), fraction(item.f1), grouped(item.support)])
        }
        metrics.append(["", "", "", "", ""])
        for (name, average) in [("macro average", macroAverage), ("weighted average", weightedAverage)] {
            metrics.append([name, fraction(average.precision), fraction(average.recall), fraction(average.f1), grouped(exampleCount)])
        }
        lines.append(metrics.render())
        lines.append("")

        // Long names would make every column wide: number the classes instead.
        let numbered = classLabels.contains { displayWidth($0) > 6 }
        lines.append("confusion matrix (rows: true class, columns: predicted class)")
        let columnHeaders = numbered ? classLabels.indices.map(String.init) : classLabels.map { $0.terminalEscaped() }
        var matrix = TextTable([""] + columnHeaders, alignments: [.left] + classLabels.map { _ in .right })
        for (label, row) in confusionMatrix.enumerated() {
            matrix.append([(numbered ? "\(label) \(classLabels[label])" : classLabels[label]).terminalEscaped()] + row.map(grouped))
        }
        lines.append(matrix.render())
        return lines.joined(separator: "\n")
    }

    private func fraction(_ value: Double) -> String { String(format: "%.4f", value) }
    private func percent(_ value: Double) -> String { String(format: "%.2f%%", value * 100) }
}
