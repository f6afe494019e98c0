import CoreMLSpec
import Foundation

/// What a tabular trainer learns: classes of a String or Int target, or values of a numeric one.
enum TabularTask: Sendable, Equatable {
    case classification
    case regression
}

/// A classifier's class labels, sorted as Create ML sorts them (strings by `<`, integers by value),
/// of the target column's type.
enum TabularClassLabels: Sendable, Equatable {
    case strings([String])
    case ints([Int])

    var count: Int {
        switch self {
        case .strings(let labels): return labels.count
        case .ints(let labels): return labels.count
        }
    }

    /// The labels as text (what `MLClassifierMetrics` holds).
    var descriptions: [String] {
        switch self {
        case .strings(let labels): return labels
        case .ints(let labels): return labels.map(String.init)
        }
    }

    /// The labels as a Core ML class-label list: `strings` for String labels, otherwise `ints`
    /// (set whichever is not nil on a classifier message).
    var specification: (strings: CoreML_Specification_StringVector?, ints: CoreML_Specification_Int64Vector?) {
        switch self {
        case .strings(let labels):
            var vector = CoreML_Specification_StringVector()
            vector.vector = labels
            return (vector, nil)
        case .ints(let labels):
            var vector = CoreML_Specification_Int64Vector()
            vector.vector = labels.map(Int64.init)
            return (nil, vector)
        }
    }

    /// A column of the labels at `indices`, of the target's type.
    func column(_ indices: [Int]) -> MLUntypedColumn {
        switch self {
        case .strings(let labels): return MLUntypedColumn(storage: ColumnStorage(.string(indices.map { labels[$0] })))
        case .ints(let labels): return MLUntypedColumn(storage: ColumnStorage(.int(indices.map { labels[$0] })))
        }
    }
}

/// The columns of an `MLDataTable` as numbers for a tabular trainer: the features column-major as
/// doubles, the target as class indices or values. Fitted once on the training table; `encode`
/// applies the same encoding to any other table (validation, evaluation, prediction).
///
/// - Int and Double feature columns are numbers; a missing value is NaN (trees learn a default
///   direction for it, linear models impute the training mean).
/// - String feature columns are categorical: the categories present in the training table, sorted,
///   coded 0, 1, …; a missing value, or a category the training table did not have, gets the code
///   `categories.count` (one "other" code, which the exported `CategoricalMapping` gives as its
///   value on unknown, so that the Swift model and the exported one agree on every row).
/// - Sequence, dictionary and multi-array columns are refused, naming the column.
///
/// Columns are read from their unboxed storage, one pass per column (no per-cell boxing): a
/// million rows of fifty numeric columns encode in a fraction of a second.
struct TabularColumns: Sendable {
    enum FeatureKind: Sendable, Equatable {
        /// An Int (`isInteger`) or Double column; the exported input is Int64 or Double.
        case numeric(isInteger: Bool)
        /// A String column with these sorted categories.
        case categorical([String])
    }

    struct Feature: Sendable, Equatable {
        let name: String
        let kind: FeatureKind

        /// The number of codes a categorical feature takes (its categories plus the "other" code),
        /// nil for a numeric one.
        var codeCount: Int? {
            if case .categorical(let categories) = kind { return categories.count + 1 }
            return nil
        }
    }

    enum Target: Sendable, Equatable {
        case classes(TabularClassLabels)
        /// Numeric values; `isInteger` when the column holds Ints.
        case values(isInteger: Bool)
    }

    let targetColumn: String
    let features: [Feature]
    let target: Target

    var featureNames: [String] { features.map(\.name) }

    /// Fits the encoding to `table`: `featureColumns` (default: every column but the target, in the
    /// table's order), categories of each String column, class labels of a classifier's target.
    /// Throws `CreateMLError` naming the column for a missing column, a column of the wrong kind, a
    /// classifier target with fewer than two classes, or no feature columns.
    init(fitting table: MLDataTable, targetColumn: String, featureColumns: [String]?, task: TabularTask) throws {
        if let failure = table.failure { throw failure }
        let targetStorage = try Self.storage(of: targetColumn, in: table, role: "target")
        let names = featureColumns ?? table.names.filter { $0 != targetColumn }
        guard !names.isEmpty else { throw CreateMLError("featureColumns", "there are no feature columns (the table has only the target column '\(targetColumn)')") }
        if names.contains(targetColumn) {
            throw CreateMLError("featureColumns", "the target column '\(targetColumn)' cannot also be a feature column")
        }
        var seen = Set<String>()
        var features: [Feature] = []
        for name in names {
            guard seen.insert(name).inserted else { throw CreateMLError("featureColumns", "column '\(name)' is listed twice") }
            let storage = try Self.storage(of: name, in: table, role: "feature")
            switch storage.values {
            case .int: features.append(Feature(name: name, kind: .numeric(isInteger: true)))
            case .double: features.append(Feature(name: name, kind: .numeric(isInteger: false)))
            case .string(let strings):
                var categories = Set<String>()
                if let missing = storage.missing {
                    for (value, isMissing) in zip(strings, missing) where !isMissing { categories.insert(value) }
                } else {
                    categories = Set(strings)
                }
                features.append(Feature(name: name, kind: .categorical(categories.sorted())))
            case .boxed(_, let type):
                throw CreateMLError("column '\(name)'", type == .invalid
                    ? "holds only missing values; a feature column must hold numbers or strings"
                    : "holds \(type) values; a tabular model's features must be numbers (Int, Double) or strings")
            }
        }
        self.targetColumn = targetColumn
        self.features = features
        switch (task, targetStorage.values) {
        case (.classification, .string(let strings)):
            try Self.checkNoMissing(targetStorage, column: targetColumn)
            target = .classes(.strings(Set(strings).sorted()))
        case (.classification, .int(let ints)):
            try Self.checkNoMissing(targetStorage, column: targetColumn)
            target = .classes(.ints(Set(ints).sorted()))
        case (.classification, _):
            throw CreateMLError("column '\(targetColumn)'", "a classifier's target must hold strings or integers; it holds \(targetStorage.type) values")
        case (.regression, .int):
            target = .values(isInteger: true)
        case (.regression, .double):
            target = .values(isInteger: false)
        case (.regression, _):
            throw CreateMLError("column '\(targetColumn)'", "a regressor's target must hold numbers; it holds \(targetStorage.type) values")
        }
        if case .classes(let labels) = target, labels.count < 2 {
            throw CreateMLError("column '\(targetColumn)'", "a classifier needs at least two classes; the training rows have \(labels.count)")
        }
    }

    private static func storage(of name: String, in table: MLDataTable, role: String) throws -> ColumnStorage {
        guard let index = table.names.firstIndex(of: name) else {
            throw CreateMLError("column '\(name)'", "the table has no \(role) column of this name; its columns are \(table.names.joined(separator: ", "))")
        }
        return table.columns[index]
    }

    private static func checkNoMissing(_ storage: ColumnStorage, column: String) throws {
        if let missing = storage.missing, let row = missing.firstIndex(of: true) {
            throw CreateMLError("table", "the target is missing", row: row, column: column)
        }
    }

    /// The feature columns of `table`, column-major (one array of `table.rowCount` doubles per
    /// feature): numbers as doubles (NaN when missing), categories as codes. Throws naming a
    /// feature column the table lacks or one of another kind.
    func encodeFeatures(_ table: MLDataTable) throws -> [[Double]] {
        if let failure = table.failure { throw failure }
        return try features.indices.map { try encodeFeature($0, of: table) }
    }

    /// Feature `index` of `table` as doubles (see ``encodeFeatures(_:)``).
    func encodeFeature(_ index: Int, of table: MLDataTable) throws -> [Double] {
        let feature = features[index]
        let storage = try Self.storage(of: feature.name, in: table, role: "feature")
        var column: [Double]
        switch (feature.kind, storage.values) {
        case (.numeric, .int(let ints)):
            column = ints.map(Double.init)
        case (.numeric, .double(let doubles)):
            column = doubles
        case (.categorical(let categories), .string(let strings)):
            let other = Double(categories.count)
            var codes = [String: Double](minimumCapacity: categories.count)
            for (code, category) in categories.enumerated() { codes[category] = Double(code) }
            column = strings.map { codes[$0] ?? other }
            if let missing = storage.missing {
                for row in missing.indices where missing[row] { column[row] = other }
            }
            return column
        case (_, .boxed(_, .invalid)):
            // A column of nothing but missing values: every row missing.
            guard case .categorical(let categories) = feature.kind else { return [Double](repeating: .nan, count: storage.count) }
            return [Double](repeating: Double(categories.count), count: storage.count)
        default:
            let expected = if case .numeric = feature.kind { "numbers" } else { "strings" }
            throw CreateMLError("column '\(feature.name)'", "holds \(storage.type) values, but the model was trained on \(expected) in this column")
        }
        if let missing = storage.missing {
            for row in missing.indices where missing[row] { column[row] = .nan }
        }
        return column
    }

    /// The target column of `table`: class indices (as doubles) into the fitted labels, or values.
    /// Throws naming the row of a missing target, or of a class the training rows did not have.
    func encodeTargets(_ table: MLDataTable) throws -> [Double] {
        if let failure = table.failure { throw failure }
        let storage = try Self.storage(of: targetColumn, in: table, role: "target")
        try Self.checkNoMissing(storage, column: targetColumn)
        switch (target, storage.values) {
        case (.values, .int(let ints)):
            return ints.map(Double.init)
        case (.values, .double(let doubles)):
            for (row, value) in doubles.enumerated() where !value.isFinite {
                throw CreateMLError("table", "the target \(value) is not a finite number", row: row, column: targetColumn)
            }
            return doubles
        case (.classes(.strings(let labels)), .string(let strings)):
            return try Self.indices(strings, labels: labels, column: targetColumn)
        case (.classes(.ints(let labels)), .int(let ints)):
            return try Self.indices(ints, labels: labels, column: targetColumn)
        default:
            throw CreateMLError("column '\(targetColumn)'", "holds \(storage.type) values, which is not the type of the training target")
        }
    }

    private static func indices<T: Hashable>(_ values: [T], labels: [T], column: String) throws -> [Double] {
        var positions = [T: Double](minimumCapacity: labels.count)
        for (index, label) in labels.enumerated() { positions[label] = Double(index) }
        var result = [Double](repeating: 0, count: values.count)
        for (row, value) in values.enumerated() {
            guard let index = positions[value] else {
                throw CreateMLError("table", "class '\(value)' is not one of the training classes", row: row, column: column)
            }
            result[row] = index
        }
        return result
    }

    /// Column-major columns as row-major rows (`rows` × `columns.count`), for rows `range`.
    static func rowMajor(_ columns: [[Double]], rows range: Range<Int>) -> [Double] {
        let width = columns.count
        var rows = [Double](repeating: 0, count: range.count * width)
        rows.withUnsafeMutableBufferPointer { rows in
            for (feature, column) in columns.enumerated() {
                column.withUnsafeBufferPointer { column in
                    var position = feature
                    for row in range {
                        rows[position] = column[row]
                        position += width
                    }
                }
            }
        }
        return rows
    }
}
