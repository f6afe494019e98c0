/// Which rows measure a tabular model while it trains (Create ML's
/// `MLBoostedTreeClassifier.ModelParameters.ValidationData` and its siblings: every tabular
/// trainer's `ModelParameters.ValidationData` is this type).
public enum TabularValidationData: Sendable {
    /// Rows set aside from the training table by `strategy` (``MLSplitStrategy/validationRowCount(rows:)``).
    case split(strategy: MLSplitStrategy)
    /// Another table with the training table's feature and target columns.
    case table(MLDataTable)
    /// No validation: metrics on the training rows only.
    case none
}

extension MLSplitStrategy {
    /// How many of `rows` rows a tabular trainer sets aside for validation. `.automatic` follows
    /// Create ML's rule: no validation under 50 rows, 10 % from 50 to 199 rows, 5 % from 200 rows;
    /// `.fixed(ratio:seed:)` takes `ratio` of the rows, rounded (at least one, and at least one
    /// row left to train on, when there are two rows or more).
    public func validationRowCount(rows: Int) -> Int {
        switch self {
        case .automatic:
            if rows < 50 { return 0 }
            return Int((Double(rows) * (rows < 200 ? 0.10 : 0.05)).rounded())
        case .fixed(let ratio, _):
            guard rows >= 2, ratio > 0 else { return 0 }
            return min(max(Int((Double(rows) * ratio).rounded()), 1), rows - 1)
        }
    }

    /// The seed of the rows' shuffle: `.fixed`'s, or 42 for `.automatic` (ours; Create ML does not
    /// document its seed).
    var seed: Int {
        switch self {
        case .automatic: return 42
        case .fixed(_, let seed): return seed
        }
    }
}

extension TabularValidationData {
    /// The training and validation tables for `table`: a split takes
    /// ``MLSplitStrategy/validationRowCount(rows:)`` rows chosen by a seeded shuffle (both parts
    /// keep the table's row order). Throws for a ratio outside (0, 1) or an invalid table.
    func tables(from table: MLDataTable, location: String) throws -> (training: MLDataTable, validation: MLDataTable?) {
        if let failure = table.failure { throw failure }
        switch self {
        case .none:
            return (table, nil)
        case .table(let validation):
            if let failure = validation.failure { throw failure }
            return (table, validation.rowCount == 0 ? nil : validation)
        case .split(let strategy):
            if case .fixed(let ratio, _) = strategy, !(ratio > 0 && ratio < 1) {
                throw CreateMLError("\(location).validation", "the split ratio must lie strictly between 0 and 1, got \(ratio)")
            }
            let count = strategy.validationRowCount(rows: table.rowCount)
            guard count > 0 else { return (table, nil) }
            let (training, validation) = Self.splitIndices(rows: table.rowCount, validationCount: count, seed: strategy.seed)
            return (table.gathering(training), table.gathering(validation))
        }
    }

    /// `validationCount` row indices chosen by a partial Fisher–Yates shuffle seeded with `seed`,
    /// and the others; both sorted.
    static func splitIndices(rows: Int, validationCount: Int, seed: Int) -> (training: [Int], validation: [Int]) {
        var generator = SeededGenerator(seed: seed)
        var order = Array(0..<rows)
        for position in 0..<validationCount {
            let other = position + Int(generator.next() % UInt64(rows - position))
            order.swapAt(position, other)
        }
        var chosen = [Bool](repeating: false, count: rows)
        for index in order[0..<validationCount] { chosen[index] = true }
        var training: [Int] = [], validation: [Int] = []
        training.reserveCapacity(rows - validationCount)
        validation.reserveCapacity(validationCount)
        for index in 0..<rows { if chosen[index] { validation.append(index) } else { training.append(index) } }
        return (training, validation)
    }
}
