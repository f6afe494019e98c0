import ArgumentParser
import Foundation
import OpenCreateML

/// `--data`, `--split`, `--scale`, `--limit`, `--class-names`: where examples come from, shared by `train`
/// and `evaluate`.
struct DatasetOptions: ParsableArguments {
    @Option(help: "A folder of MNIST-format IDX files (train-*/t10k-*, gzipped or not), or a CSV file (label first, then the values).")
    var data: String?

    @Option(help: "Which IDX files to read: train or test.")
    var split: String?

    @Option(help: "Multiply every value by this (default 1/255, for 8-bit pixels).")
    var scale: Float = 1 / 255

    @Option(help: "Use only the first N examples.")
    var limit: Int?

    @Option(name: .customLong("class-names"), help: "k-NN models with string labels: comma-separated names for the dataset's class indices 0, 1, … (default: the index as text).")
    var classNames: String?

    /// `--class-names` split at commas.
    var classNameList: [String]? {
        classNames.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    /// Loads `--data`, using `defaultSplit` for IDX folders when `--split` is not given.
    func load(defaultSplit: LabeledDataset.Split) throws -> LabeledDataset {
        guard let data else { throw CLIError.model("give the examples with --data FOLDER or --data FILE.csv") }
        if let limit, limit < 1 { throw CLIError.model("--limit must be at least 1, got \(limit)") }
        guard scale.isFinite, scale > 0 else { throw CLIError.model("--scale must be a positive number, got \(scale)") }
        var chosen = defaultSplit
        if let split {
            guard let parsed = LabeledDataset.Split(rawValue: split) else { throw CLIError.model("--split must be train or test, got '\(split)'") }
            chosen = parsed
        }
        let dataset = try CLIError.wrapping { try LabeledDataset(contentsOf: URL(fileURLWithPath: data), split: chosen, scale: scale) }
        return limit.map { dataset.prefix($0) } ?? dataset
    }
}
