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
/// - String feature columns are categorical: the categories present in the training table, coded
///   0, 1, … by descending frequency (ties alphabetically; see ``byFrequency(_:)``); a missing
///   value, or a category the training table did not have, gets the code
///   `categories.count` (one "other" code, which the exported `CategoricalMapping` gives as its
///   value on unknown, so that the Swift model and the exported one agree on every row).
/// - Multi-array and numeric sequence columns (an OpenCoreML addition, as Turi Create's array
///   columns) are vectors of one width: each element is a numeric feature of its own (named by
///   the column, `.element(index:width:)`), a missing row or a NaN element is missing; the
///   exported input is a multi-array of that width. Dictionary columns are refused, naming the column.
///
/// Columns are read from their unboxed storage, one pass per column (no per-cell boxing): a
/// million rows of fifty numeric columns encode in a fraction of a second.
struct TabularColumns: Sendable {
    enum FeatureKind: Sendable, Equatable {
        /// An Int (`isInteger`) or Double column; the exported input is Int64 or Double.
        case numeric(isInteger: Bool)
        /// A String column with these categories, most frequent first (a category's code is its position).
        case categorical([String])
        /// Element `index` of a vector column `width` numbers wide (one feature per element).
        case element(index: Int, width: Int)
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

    /// The feature columns, in order (a vector column once, though it is one feature per element).
    var featureNames: [String] {
        var seen = Set<String>()
        return features.map(\.name).filter { seen.insert($0).inserted }
    }

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
                var counts: [String: Int] = [:]
                if let missing = storage.missing {
                    for (value, isMissing) in zip(strings, missing) where !isMissing { counts[value, default: 0] += 1 }
                } else {
                    for value in strings { counts[value, default: 0] += 1 }
                }
                features.append(Feature(name: name, kind: .categorical(Self.byFrequency(counts))))
            case .boxed(let values, .multiArray), .boxed(let values, .sequence):
                let width = try Self.vectorWidth(values, column: name)
                features += (0..<width).map { Feature(name: name, kind: .element(index: $0, width: width)) }
            case .boxed(_, let type):
                throw CreateMLError("column '\(name)'", type == .invalid
                    ? "holds only missing values; a feature column must hold numbers or strings"
                    : "holds \(type) values; a tabular model's features must be numbers (Int, Double), strings or vectors of numbers")
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

    /// Categories ordered by descending count, ties alphabetically: the code of a category is its
    /// position, and the tree binning splits only on the first 254 codes of a column (the rest
    /// share one bin), so the most frequent categories are the ones a tree can split on.
    static func byFrequency(_ counts: [String: Int]) -> [String] {
        counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map(\.key)
    }

    private static func storage(of name: String, in table: MLDataTable, role: String) throws -> ColumnStorage {
        guard let index = table.index(of: name) else {
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
        let vectors = VectorCache()
        return try features.indices.map { try encodeFeature($0, of: table, vectors: vectors) }
    }

    /// The vector columns of one table, read once as row-major doubles (a vector's elements are
    /// features of their own, asked for one at a time).
    final class VectorCache {
        var rows: [String: [Double]] = [:]
    }

    /// Feature `index` of `table` as doubles (see ``encodeFeatures(_:)``); `vectors` keeps the
    /// vector columns read so far (pass one cache for every feature of one table).
    func encodeFeature(_ index: Int, of table: MLDataTable, vectors: VectorCache = VectorCache()) throws -> [Double] {
        let feature = features[index]
        let storage = try Self.storage(of: feature.name, in: table, role: "feature")
        var column: [Double]
        switch (feature.kind, storage.values) {
        case (.element(let element, let width), .boxed(let values, let type)) where type == .multiArray || type == .sequence || type == .invalid:
            let rows: [Double]
            if let cached = vectors.rows[feature.name] { rows = cached } else {
                rows = try Self.vectorRows(values, width: width, column: feature.name)
                vectors.rows[feature.name] = rows
            }
            return stride(from: element, to: rows.count, by: width).map { rows[$0] }
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
            let expected = switch feature.kind {
            case .numeric: "numbers"
            case .categorical: "strings"
            case .element(_, let width): "vectors of \(width) numbers"
            }
            throw CreateMLError("column '\(feature.name)'", "holds \(storage.type) values, but the model was trained on \(expected) in this column")
        }
        if let missing = storage.missing {
            for row in missing.indices where missing[row] { column[row] = .nan }
        }
        return column
    }

    /// Checks the rows a trainer is given before it splits off validation rows, so that an error
    /// names the column and the row of the caller's table (not of the training or validation part):
    /// every target present (and a finite number, or one of the classes), every numeric feature
    /// finite or missing. `validation` is checked too when it is a separate table (its own rows).
    func checkRows(_ table: MLDataTable, validation: TabularValidationData) throws {
        try checkRows(table)
        if case .table(let other) = validation, other.rowCount > 0 { try checkRows(other) }
    }

    private func checkRows(_ table: MLDataTable) throws {
        _ = try encodeTargets(table)
        for feature in features {
            guard case .numeric = feature.kind, let index = table.index(of: feature.name),
                  case .double(let values) = table.columns[index].values else { continue }
            let missing = table.columns[index].missing
            for (row, value) in values.enumerated() where value.isInfinite && missing?[row] != true {
                throw CreateMLError("table", "the value \(value) is not a finite number", row: row, column: feature.name)
            }
        }
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

    /// The one width of a vector column's values (its missing rows aside). Throws naming the
    /// column for a column of no values, values of different widths, or a non-numeric element.
    static func vectorWidth(_ values: [MLDataValue], column: String) throws -> Int {
        var width: Int?
        for (row, value) in values.enumerated() where value.isValid {
            let count: Int
            switch value {
            case .multiArray(let array): count = array.scalars.count
            case .sequence(let sequence):
                if let bad = sequence.first(where: { $0.intValue == nil && $0.doubleValue == nil }) {
                    throw CreateMLError("table", "a vector column holds numbers; this row holds the \(bad.type) value \(bad)", row: row, column: column)
                }
                count = sequence.count
            default: count = -1
            }
            if width == nil { width = count }
            guard count == width, count > 0 else {
                throw CreateMLError("table", "every vector of the column must hold the same positive number of values (\(width ?? 0) in the first); this row holds \(count)", row: row, column: column)
            }
        }
        guard let width else { throw CreateMLError("column '\(column)'", "holds only missing values; a feature column must hold numbers, strings or vectors") }
        return width
    }

    /// A vector column's rows, row-major (`values.count` × `width`), NaN for a missing row.
    static func vectorRows(_ values: [MLDataValue], width: Int, column: String) throws -> [Double] {
        var rows = [Double](repeating: .nan, count: values.count * width)
        for (row, value) in values.enumerated() {
            let numbers: [Double]
            switch value {
            case .invalid: continue
            case .multiArray(let array): numbers = array.scalars
            case .sequence(let sequence): numbers = sequence.map { $0.doubleValue ?? $0.intValue.map(Double.init) ?? .nan }
            default: throw CreateMLError("table", "holds a \(value.type) value where the model was trained on vectors", row: row, column: column)
            }
            guard numbers.count == width else {
                throw CreateMLError("table", "holds a vector of \(numbers.count) values where the model was trained on \(width)", row: row, column: column)
            }
            for (element, number) in numbers.enumerated() {
                if number.isInfinite { throw CreateMLError("table", "the value \(number) is not a finite number", row: row, column: column) }
                rows[row * width + element] = number
            }
        }
        return rows
    }

    /// Column-major columns as row-major rows (`rows` × `columns.count`), for rows `range`.
    static func rowMajor(_ columns: [[Double]], rows range: Range<Int>) -> [Double] {
        let width = columns.count
        // Callers bound rows × width: the tree prediction passes chunks of 2¹⁵ rows of the features.
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
