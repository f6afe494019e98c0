/// The per-epoch table printed after training.
enum EpochTable {
    static func render(_ epochs: [TrainingSession.Epoch]) -> String {
        let hasAccuracy = epochs.contains { $0.accuracy != nil }
        var table = TextTable(["epoch", "loss"] + (hasAccuracy ? ["accuracy"] : []) + ["seconds"])
        for (index, epoch) in epochs.enumerated() {
            var row = ["\(index + 1)", String(format: "%.4f", epoch.loss)]
            if hasAccuracy { row.append(epoch.accuracy.map { String(format: "%.2f%%", $0 * 100) } ?? "") }
            row.append(String(format: "%.1f", epoch.seconds))
            table.append(row)
        }
        return table.render()
    }
}
