extension MLClassifierMetrics {
    /// The confusion counts as Create ML's table: one row per pair of classes, with the columns
    /// `True Label`, `Predicted` and `Count`, true labels in ``classLabels`` order.
    public var confusion: MLDataTable {
        var truth: [String] = [], predicted: [String] = [], counts: [Int] = []
        for (t, row) in confusionMatrix.enumerated() {
            for (p, count) in row.enumerated() {
                truth.append(classLabels[t])
                predicted.append(classLabels[p])
                counts.append(count)
            }
        }
        var table = MLDataTable()
        table.addColumn(MLDataColumn(truth), named: "True Label")
        table.addColumn(MLDataColumn(predicted), named: "Predicted")
        table.addColumn(MLDataColumn(counts), named: "Count")
        return table
    }

    /// Precision and recall of every class as Create ML's table: the columns `Class`, `Precision`
    /// and `Recall` (fractions from 0 to 1), one row per class in ``classLabels`` order.
    public var precisionRecall: MLDataTable {
        let rows = classes
        var table = MLDataTable()
        table.addColumn(MLDataColumn(rows.map(\.label)), named: "Class")
        table.addColumn(MLDataColumn(rows.map(\.precision)), named: "Precision")
        table.addColumn(MLDataColumn(rows.map(\.recall)), named: "Recall")
        return table
    }
}
