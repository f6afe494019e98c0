import OpenCoreML

/// The per-epoch table printed after training.
enum EpochTable {
    static func render(_ epochs: [MLUpdateResult.Epoch]) -> String {
        let hasAccuracy = epochs.contains { $0.accuracy != nil }
        var table = TextTable(["epoch", "loss"] + (hasAccuracy ? ["accuracy"] : []) + ["seconds"])
        for epoch in epochs {
            var row = ["\(epoch.index + 1)", epoch.loss.map { String(format: "%.4f", $0) } ?? ""]
            if hasAccuracy { row.append(epoch.accuracy.map { String(format: "%.2f%%", $0 * 100) } ?? "") }
            row.append(String(format: "%.1f", epoch.seconds))
            table.append(row)
        }
        return table.render()
    }
}
