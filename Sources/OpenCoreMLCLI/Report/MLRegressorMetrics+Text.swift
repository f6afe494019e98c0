import Foundation
import OpenCreateML

extension MLRegressorMetrics {
    /// The error table: RMSE, maximum error and mean absolute error over the examples.
    func renderText() -> String {
        var table = TextTable(["metric", "value"], alignments: [.left, .right])
        table.append(["root-mean-square error", number(rootMeanSquaredError)])
        table.append(["maximum error", number(maximumError)])
        table.append(["mean absolute error", number(meanAbsoluteError)])
        table.append(["examples", grouped(exampleCount)])
        return table.render()
    }

    /// Four significant digits, whatever the target's scale.
    private func number(_ value: Double) -> String { String(format: "%.4g", value) }
}
