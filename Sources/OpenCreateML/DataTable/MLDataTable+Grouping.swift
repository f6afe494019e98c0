import Foundation

extension MLDataTable {
    /// The row indices of each group of equal key values, groups in order of first appearance and
    /// rows in table order.
    func groupIndices(by keyColumns: [Int]) -> (keys: [[MLDataValue]], rows: [[Int]]) {
        var groupOfKey: [[MLDataValue]: Int] = [:]
        var keys: [[MLDataValue]] = []
        var rows: [[Int]] = []
        for row in 0..<rowCount {
            let key = keyColumns.map { columns[$0][row] }
            if let g = groupOfKey[key] { rows[g].append(row) } else {
                groupOfKey[key] = keys.count
                keys.append(key)
                rows.append([row])
            }
        }
        return (keys, rows)
    }

    /// A table with one row per distinct combination of the named columns' values, those columns,
    /// and one column per aggregator operation computed over the group's rows.
    ///
    /// Groups appear in the order their first row appears in the table (ours: Create ML does not
    /// promise an order). Missing key values form a group of their own. A column name that does not
    /// exist, or an operation that does not fit the column's kind (`sum` of strings), gives an
    /// invalid table.
    public func group<S: Sequence>(columnsNamed: String..., aggregators: S) -> MLDataTable where S.Element == MLDataTable.Aggregator {
        if failure != nil { return self }
        var keyIndices: [Int] = []
        let indices = columnIndices()
        for name in columnsNamed {
            guard let i = indices[name] else { return invalid(missingColumnError(name)) }
            keyIndices.append(i)
        }
        let (keys, groups) = groupIndices(by: keyIndices)
        var result = MLDataTable()
        for (k, name) in columnsNamed.enumerated() {
            let values = keys.map { $0[k] }
            result.insert(ColumnStorage.from(values: values) ?? ColumnStorage(.boxed(values, columns[keyIndices[k]].type)), named: name)
        }
        result.rowCount = keys.count
        for aggregator in aggregators {
            guard let source = indices[aggregator.columnName] else { return invalid(missingColumnError(aggregator.columnName)) }
            let column = columns[source]
            for operation in aggregator.operations {
                let outputName = operation.columnName(of: aggregator.columnName)
                guard let values = Self.aggregate(operation, column: column, groups: groups) else {
                    return invalid(CreateMLError("column \"\(aggregator.columnName)\"", "cannot compute \(outputName) of \(column.type) values"))
                }
                result.insert(values, named: outputName)
            }
        }
        return result
    }

    static func aggregate(_ operation: Aggregator.Operations, column: ColumnStorage, groups: [[Int]]) -> ColumnStorage? {
        let numeric = column.type == .int || column.type == .double
        switch operation {
        case .count:
            return ColumnStorage(.int(groups.map(\.count)))
        case .distinctCount:
            return ColumnStorage(.int(groups.map { rows in Set(rows.filter { !column.isMissing($0) }.map { column[$0] }).count }))
        case .sum:
            guard numeric else { return nil }
            if case .int(let a) = column.values {
                return ColumnStorage(.int(groups.map { rows in rows.reduce(0) { column.isMissing($1) ? $0 : $0 &+ a[$1] } }))
            }
            guard case .double(let a) = column.values else { return nil }
            return ColumnStorage(.double(groups.map { rows in rows.reduce(0.0) { column.isMissing($1) ? $0 : $0 + a[$1] } }))
        case .mean, .stdev, .variance:
            guard numeric else { return nil }
            var out: [Double] = []
            var missing: [Bool] = []
            for rows in groups {
                let m = column.gather(rows).moments ?? Moments()
                let value: Double? = switch operation {
                case .mean: m.count > 0 ? m.mean : nil
                case .variance: m.variance
                default: m.variance.map { $0.squareRoot() }
                }
                out.append(value ?? 0)
                missing.append(value == nil)
            }
            return ColumnStorage(.double(out), missing: missing)
        case .min, .max:
            guard numeric || column.type == .string else { return nil }
            let wanted = operation == .min ? -1 : 1
            let values: [MLDataValue] = groups.map { rows in
                var best: MLDataValue = .invalid
                for row in rows where !column.isMissing(row) {
                    let v = column[row]
                    if !best.isValid || compareDataValues(v, best) == wanted { best = v }
                }
                return best
            }
            return ColumnStorage.from(values: values) ?? ColumnStorage.allMissing(column.type, count: groups.count)
        case .sequenceMerge:
            return ColumnStorage(.boxed(groups.map { rows in
                .sequence(MLDataValue.SequenceType(rows.filter { !column.isMissing($0) }.map { column[$0] }))
            }, .sequence))
        }
    }

    /// The table's rows split by the values of one column: one table per distinct value, in the
    /// order each value first appears, each holding that value's rows in table order.
    ///
    /// Ours: Create ML has no such method (its `group(columnsNamed:aggregators:)` only summarizes
    /// groups). It serves readers that need every group's rows, such as the sessions of an activity
    /// data set. Missing values form a group with the key `.invalid`; a column that does not exist
    /// gives no groups.
    ///
    /// ```swift
    /// for (session, rows) in table.grouped(by: "sessionId") { … }
    /// ```
    public func grouped(by columnName: String) -> [(key: MLDataValue, rows: MLDataTable)] {
        guard let i = index(of: columnName) else { return [] }
        let (keys, groups) = groupIndices(by: [i])
        return zip(keys, groups).map { (key: $0[0], rows: gathering($1)) }
    }
}
