import ArgumentParser
import Foundation
import OpenCreateML

/// `--data`, `--split`, `--scale`, `--limit`, `--class-names`: where examples come from, shared by `train`
/// and `evaluate`.
struct DatasetOptions: ParsableArguments {
    @Option(help: "A folder of MNIST-format IDX files (train-*/t10k-*, gzipped or not), a CSV file (label first, then the values), or generated-digits:N for N digits the program draws (28×28, no download).")
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

    /// N of `generated-digits:N`, or nil for a path.
    static func generatedDigitCount(_ data: String) throws -> Int? {
        guard data.hasPrefix("generated-digits") else { return nil }
        guard let colon = data.firstIndex(of: ":"), let count = Int(data[data.index(after: colon)...]), count >= 1, count <= 1_000_000 else {
            throw CLIError.model("--data generated-digits:N takes a count N from 1 to 1,000,000, got '\(data)'")
        }
        return count
    }

    /// Whether `--data` holds both splits (an IDX folder or generated digits).
    var hasTestSplit: Bool {
        guard let data else { return false }
        if data.hasPrefix("generated-digits") { return true }
        var folder: ObjCBool = false
        return FileManager.default.fileExists(atPath: data, isDirectory: &folder) && folder.boolValue
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
        if let count = try Self.generatedDigitCount(data) {
            // The train and test splits are drawn from different seeds, so they never share a digit.
            let digits = LabeledDataset.generatedDigits(count, seed: chosen == .train ? 1 : 2, name: "generated digits (\(chosen.rawValue))")
            return limit.map { digits.prefix($0) } ?? digits
        }
        let dataset = try CLIError.wrapping { try LabeledDataset(contentsOf: URL(fileURLWithPath: data), split: chosen, scale: scale) }
        return limit.map { dataset.prefix($0) } ?? dataset
    }
}
