import Foundation
import _OpenCoreMLFormats

/// One recording of an activity table: its rows in table order (the time order), their feature
/// values and, when labelled, their class indices.
struct ActivitySession: Sendable {
    /// The value of the session column (or "0" when the whole table is one session).
    var id: String
    /// The table's row index of every sample.
    var rows: [Int]
    /// One row of `featureCount` values per sample.
    var samples: [[Float]]
    /// One class index per sample; nil when the table has no labels.
    var labels: [Int]?

    /// Turi Create's chunks of this session (see ``ActivityChunk``).
    func chunks(featureCount: Int, predictionWindow: Int, classCount: Int) -> [ActivityChunk] {
        ActivityChunk.chunks(samples: samples, labels: labels, featureCount: featureCount, predictionWindow: predictionWindow,
                             classCount: classCount)
    }
}

/// Reads an activity table in long format (one row per sample) into sessions, checking every value
/// it uses. A bad value is a ``CreateMLError`` naming the table, the row and the column.
enum ActivitySessions {
    /// The sessions of `table`, in the order their first rows appear.
    ///
    /// - Parameters:
    ///   - what: How errors name the table ("trainingData", a file name, ...).
    ///   - featureColumns: Numeric columns (integers or floating point), each value finite.
    ///   - labelColumn: The label column (strings or integers), or nil when predicting.
    ///   - sessionColumn: The recording column; nil for one session holding every row.
    ///   - classes: The known classes; a label outside them is an error. nil: every label found (sorted).
    ///   - predictionWindow: The shortest session allowed, in samples.
    static func read(
        _ table: MLDataTable, what: String, featureColumns: [String], labelColumn: String?, sessionColumn: String?,
        classes: [String]?, predictionWindow: Int
    ) throws -> (sessions: [ActivitySession], classes: [String]) {
        if let error = table.error { throw CreateMLError(what, "the table is not valid: \(error)") }
        guard table.size.rows > 0 else { throw CreateMLError(what, "the table has no rows") }
        guard !featureColumns.isEmpty else { throw CreateMLError("featureColumns", "name at least one feature column") }
        if classes == nil, featureColumns.count > MLActivityClassifier.featureLimit {
            throw CreateMLError(what, "\(featureColumns.count) feature columns; an activity classifier takes at most \(MLActivityClassifier.featureLimit)")
        }
        // Columns by name, looked up once each (a table may have hundreds of thousands).
        let indices = table.columnIndices()
        for column in featureColumns + [labelColumn, sessionColumn].compactMap({ $0 }) where indices[column] == nil {
            throw CreateMLError(what, "there is no column '\(column)' (columns: \(nameList(table.names)))")
        }
        func column(_ name: String) -> MLUntypedColumn { MLUntypedColumn(storage: table.columns[indices[name]!]) }
        if let duplicate = Dictionary(grouping: featureColumns, by: { $0 }).first(where: { $0.value.count > 1 })?.key {
            throw CreateMLError("featureColumns", "'\(duplicate)' is named twice")
        }
        let rowCount = table.size.rows

        // Features, column by column, as floats.
        var columns: [[Float]] = []
        for name in featureColumns {
            let column = column(name)
            var values = [Float](repeating: 0, count: rowCount)
            for row in 0..<rowCount {
                let value: Double
                switch column[row] {
                case .double(let v): value = v
                case .int(let v): value = Double(v)
                case .invalid:
                    throw CreateMLError(what, "the value is missing", row: row, column: name)
                case .string(let text) where Double(text.trimmingCharacters(in: .whitespaces)) != nil:
                    // A column that also holds text reads as strings; its numbers still count.
                    value = Double(text.trimmingCharacters(in: .whitespaces))!
                case let other:
                    throw CreateMLError(what, "'\(other)' is not a number", row: row, column: name)
                }
                guard value.isFinite, abs(value) <= Double(Float.greatestFiniteMagnitude) else {
                    throw CreateMLError(what, "\(value) is not a finite number", row: row, column: name)
                }
                values[row] = Float(value)
            }
            columns.append(values)
        }

        // Labels.
        var rowLabels: [String]?
        if let labelColumn {
            let column = column(labelColumn)
            var labels: [String] = []
            labels.reserveCapacity(rowCount)
            for row in 0..<rowCount {
                switch column[row] {
                case .string(let v) where !v.isEmpty: labels.append(v)
                case .int(let v): labels.append(String(v))
                case .invalid, .string:
                    throw CreateMLError(what, "the label is missing", row: row, column: labelColumn)
                case let other:
                    throw CreateMLError(what, "'\(other)' is not a label (a string or an integer)", row: row, column: labelColumn)
                }
            }
            rowLabels = labels
        }
        let classList: [String]
        if let classes {
            classList = classes
        } else {
            var distinct = Set<String>()
            for label in rowLabels ?? [] where distinct.insert(label).inserted && distinct.count > MLActivityClassifier.classLimit {
                throw CreateMLError(what, "column '\(labelColumn!)' holds more than \(MLActivityClassifier.classLimit) distinct labels; an activity classifier tells at most \(MLActivityClassifier.classLimit) activities apart")
            }
            classList = distinct.sorted()
        }
        let classIndex = Dictionary(uniqueKeysWithValues: classList.enumerated().map { ($1, $0) })
        var rowClasses: [Int]?
        if let rowLabels {
            var indices: [Int] = []
            indices.reserveCapacity(rowCount)
            for (row, label) in rowLabels.enumerated() {
                guard let index = classIndex[label] else {
                    throw CreateMLError(what, "the label '\(label)' is not one the model knows (\(nameList(classList)))",
                                        row: row, column: labelColumn)
                }
                indices.append(index)
            }
            rowClasses = indices
        }

        // Sessions, in order of first appearance; rows keep the table's order.
        var order: [String] = []
        var members: [String: [Int]] = [:]
        if let sessionColumn {
            let column = column(sessionColumn)
            for row in 0..<rowCount {
                let id: String
                switch column[row] {
                case .string(let v) where !v.isEmpty: id = v
                case .int(let v): id = String(v)
                case .double(let v) where v.isFinite: id = v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
                case .invalid, .string, .double:
                    throw CreateMLError(what, "the session is missing", row: row, column: sessionColumn)
                case let other:
                    throw CreateMLError(what, "'\(other)' is not a session identifier", row: row, column: sessionColumn)
                }
                if members[id] == nil { order.append(id) }
                members[id, default: []].append(row)
            }
        } else {
            order = ["0"]
            members["0"] = Array(0..<rowCount)
        }
        let sessions = try order.map { id -> ActivitySession in
            let rows = members[id]!
            guard rows.count >= predictionWindow else {
                throw CreateMLError(
                    what, "session '\(id)' has \(rows.count) sample\(rows.count == 1 ? "" : "s"), fewer than one prediction window (\(predictionWindow))",
                    row: rows[0], column: sessionColumn)
            }
            return ActivitySession(
                id: id, rows: rows, samples: rows.map { row in columns.map { $0[row] } }, labels: rowClasses.map { all in rows.map { all[$0] } })
        }
        return (sessions, classList)
    }
}
