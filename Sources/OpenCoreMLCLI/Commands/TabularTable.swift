import ArgumentParser
import Foundation
import OpenCoreML
import OpenCreateML

/// A CSV table `tabular train` and `tabular evaluate` read: the file's rows as an `MLDataTable`
/// (read as `activity-classifier` reads its recordings, so that errors name the file's line), and
/// the checks on its columns the commands make before training.
struct TabularTable {
    let file: CSVFileTable
    var table: MLDataTable { file.table }
    var path: String { file.path }

    /// Reads `path`, with a spinner and the elapsed time on standard error when it is a terminal;
    /// prints the table's size and the time taken on standard output unless `quiet`.
    static func load(_ path: String, quiet: Bool = false) throws -> TabularTable {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        let indicator = ElapsedIndicator("reading \(URL(fileURLWithPath: path).lastPathComponent)" + (size.map { " (\(byteCount($0)))" } ?? ""))
        let start = monotonicSeconds()
        let file: CSVFileTable
        do {
            file = try CSVFileTable(path: path, timeColumn: nil)
            indicator.finish()
        } catch {
            indicator.finish()
            throw error
        }
        if !quiet {
            print(String(format: "read %@: %@ rows × %d columns in %.2f s", path.terminalEscaped(), grouped(file.table.size.rows), file.columns.count,
                         monotonicSeconds() - start))
        }
        return TabularTable(file: file)
    }

    /// The feature columns: `list` (comma-separated), or every column but the target. Each must exist.
    func featureColumns(_ list: String?, target: String) throws -> [String] {
        try requireColumn(target, role: "target")
        guard let list else { return file.columns.filter { $0 != target } }
        let names = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !names.isEmpty else { throw ValidationError("--features names no column") }
        for name in names {
            try requireColumn(name, role: "feature")
            if name == target { throw CLIError.file(path, "the target column '\(target)' cannot also be a feature") }
        }
        return names
    }

    func requireColumn(_ name: String, role: String) throws {
        guard file.columns.contains(name) else {
            throw CLIError.file(path, "there is no \(role) column '\(name)' (columns: \(file.columns.joined(separator: ", ")))")
        }
    }

    /// The task the target's values imply: String → classification; Int → classification when it
    /// has at most `Task.classCountLimit` distinct values, else regression; Double → regression.
    /// `linear` and `logistic` imply their task.
    func inferredTask(target: String, algorithm: Tabular.Algorithm) throws -> Tabular.Task {
        if algorithm == .linear { return .regression }
        if algorithm == .logistic { return .classification }
        let column = table[target]
        switch column.type {
        case .string:
            return .classification
        case .double:
            return .regression
        case .int:
            var values = Set<Int>()
            if let ints = column.ints {
                for row in 0..<ints.count {
                    guard let value = ints.element(at: row) else { continue }
                    values.insert(value)
                    if values.count > Tabular.Task.classCountLimit { return .regression }
                }
            }
            return .classification
        default:
            throw CLIError.file(path, "the target column '\(target)' holds \(column.type) values, not numbers or text")
        }
    }

    /// The library's error naming this file (or the validation file) and the line of a bad value.
    func locate(_ error: Error, validation: TabularTable?) -> Error {
        file.locate(error, validation: validation?.file)
    }

    /// `body`'s error naming the line of the row it is about (`example N` in evaluation errors).
    func locatingRows<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as CreateMLError {
            let prefix = "example "
            if error.location.hasPrefix(prefix), let row = Int(error.location.dropFirst(prefix.count)) {
                throw CLIError.file("\(path):\(file.line(ofRow: row))", error.message)
            }
            throw file.locate(error)
        } catch {
            throw CLIError.wrap(error)
        }
    }

    /// The rows as the model's inputs, read from the columns named as the inputs, with the target column.
    func modelRows(for model: MLModel, target: String) throws -> TabularModelRows {
        try requireColumn(target, role: "target")
        return try TabularModelRows(table: self, model: model, target: target)
    }
}

/// `--validation auto|none|FRACTION|FILE.csv`, with the validation file read when it is one.
struct TabularValidation {
    enum Setting {
        case automatic, none, fraction(Double, seed: Int), table(MLDataTable)
    }

    let setting: Setting
    let file: TabularTable?

    init(_ text: String, seed: Int, columns: [String]) throws {
        switch text {
        case "auto":
            (setting, file) = (.automatic, nil)
        case "none":
            (setting, file) = (.none, nil)
        default:
            if let fraction = Double(text) {
                guard fraction > 0 && fraction < 1 else {
                    throw ValidationError("--validation \(text): a fraction of the rows must be between 0 and 1 (exclusive)")
                }
                (setting, file) = (.fraction(fraction, seed: seed), nil)
            } else {
                let loaded = try TabularTable.load(text)
                for column in columns { try loaded.requireColumn(column, role: "validation") }
                (setting, file) = (.table(loaded.table), loaded)
            }
        }
    }
}

/// A table's rows as a model's inputs: each input from the column of its name (a number input from
/// an Int or Double column, a text input from a String column; a missing number is NaN for a Double
/// input and left out for an Int64 one, so that the model's own missing-value rule applies; missing
/// text is left out when the input is optional and empty otherwise), plus the target column's value under
/// the name `targetFeature`, for the metrics to read the truth from.
final class TabularModelRows: MLBatchProvider, @unchecked Sendable {
    private enum Values {
        case doubles([Double])
        case ints([Int64?])
        case strings([String?])
    }

    let count: Int
    let isClassifier: Bool
    /// The input feature holding the true value: the target column's name.
    let targetFeature: String
    /// The output holding a regressor's prediction: the output named as the target, else the first.
    let predictionFeature: String?
    private let columns: [(name: String, values: Values)]
    private let columnIndex: [String: Int]

    init(table: TabularTable, model: MLModel, target: String) throws {
        let description = model.modelDescription
        isClassifier = description.classLabels.map { !$0.isEmpty } ?? false
        count = table.table.size.rows
        targetFeature = target
        let outputs = description.outputDescriptions.map(\.name)
        predictionFeature = outputs.contains(target) ? target : outputs.first
        var columns: [(String, Values)] = []
        for input in description.inputDescriptions where input.name != target {
            guard table.file.columns.contains(input.name) else {
                throw CLIError.file(table.path, "there is no column '\(input.name)' for the model's input of that name (columns: \(table.file.columns.joined(separator: ", ")))")
            }
            columns.append((input.name, try Self.values(table.table[input.name], as: input.type, optional: input.isOptional, name: input.name, table: table)))
        }
        let truth = table.table[target]
        for row in 0..<truth.count where truth[row] == .invalid {
            throw CLIError.file("\(table.path):\(table.file.line(ofRow: row))", "column '\(target)': the target value is missing")
        }
        switch truth.type {
        case .int: columns.append((target, isClassifier ? .ints(Self.int64s(truth)) : .doubles(Self.doubles(truth))))
        case .double:
            guard !isClassifier else {
                throw CLIError.file(table.path, "column '\(target)' holds numbers with fractions; a classifier's labels are integers or text")
            }
            columns.append((target, .doubles(Self.doubles(truth))))
        case .string:
            guard isClassifier else { throw CLIError.file(table.path, "column '\(target)' holds text; the regressor predicts numbers") }
            columns.append((target, .strings(Self.strings(truth))))
        default:
            throw CLIError.file(table.path, "column '\(target)' holds \(truth.type) values, not numbers or text")
        }
        self.columns = columns
        columnIndex = Dictionary(columns.enumerated().map { ($1.0, $0) }, uniquingKeysWith: { first, _ in first })
    }

    func features(at index: Int) -> MLFeatureProvider { Row(rows: self, index: index) }

    private struct Row: MLFeatureProvider {
        let rows: TabularModelRows
        let index: Int

        var featureNames: Set<String> {
            Set(rows.columns.compactMap { column in
                switch column.values {
                case .strings(let values) where values[index] == nil: return nil
                case .ints(let values) where values[index] == nil: return nil
                default: return column.name
                }
            })
        }

        func featureValue(for featureName: String) -> MLFeatureValue? {
            guard let position = rows.columnIndex[featureName] else { return nil }
            switch rows.columns[position].values {
            case .doubles(let values): return MLFeatureValue(double: values[index])
            case .ints(let values): return values[index].map { MLFeatureValue(int64: $0) }
            case .strings(let values): return values[index].map { MLFeatureValue(string: $0) }
            }
        }
    }

    private static func values(_ column: MLUntypedColumn, as type: MLFeatureType, optional: Bool, name: String, table: TabularTable) throws -> Values {
        switch (type, column.type) {
        case (.double, .int), (.double, .double):
            return .doubles(doubles(column))
        case (.int64, .int):
            return .ints(int64s(column))
        case (.int64, .double):
            var values = [Int64?](repeating: nil, count: column.count)
            for row in 0..<column.count where column[row] != .invalid {
                guard case .double(let value) = column[row], let integer = Int64(exactly: value) else {
                    throw CLIError.file("\(table.path):\(table.file.line(ofRow: row))", "column '\(name)': the model's input takes integers, not \(column[row])")
                }
                values[row] = integer
            }
            return .ints(values)
        case (.string, .string):
            let strings = strings(column)
            return .strings(optional ? strings : strings.map { $0 ?? "" })
        case (.string, .int), (.string, .double):
            return .strings(strings(MLUntypedColumn(strings: column)).map { optional ? $0 : $0 ?? "" })
        default:
            throw CLIError.file(table.path, "column '\(name)' holds \(column.type) values; the model's input '\(name)' takes \(type)")
        }
    }

    private static func doubles(_ column: MLUntypedColumn) -> [Double] {
        (0..<column.count).map { row in
            switch column[row] {
            case .double(let value): return value
            case .int(let value): return Double(value)
            default: return .nan
            }
        }
    }

    private static func int64s(_ column: MLUntypedColumn) -> [Int64?] {
        (0..<column.count).map { row in
            if case .int(let value) = column[row] { return Int64(value) }
            return nil
        }
    }

    private static func strings(_ column: MLUntypedColumn) -> [String?] {
        (0..<column.count).map { row in
            if case .string(let value) = column[row] { return value }
            return nil
        }
    }
}

/// `1536` → `1.5 kB`, `1_000_000_000` → `1.0 GB`.
private func byteCount(_ bytes: Int) -> String {
    let units = ["bytes", "kB", "MB", "GB", "TB"]
    var value = Double(bytes), unit = 0
    while value >= 1000 && unit < units.count - 1 {
        value /= 1000
        unit += 1
    }
    return unit == 0 ? "\(bytes) bytes" : String(format: "%.1f %@", value, units[unit])
}
