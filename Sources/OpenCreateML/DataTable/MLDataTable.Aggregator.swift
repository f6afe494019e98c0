extension MLDataTable {
    /// Operations that `group(columnsNamed:aggregators:)` applies to one column of each group of
    /// rows, each making one column of the grouped table.
    ///
    /// ```swift
    /// let perCity = table.group(columnsNamed: "city", aggregators: [
    ///     MLDataTable.Aggregator(operations: .count, of: "price"),
    ///     MLDataTable.Aggregator(operations: .mean, .max, of: "price"),
    /// ])
    /// // columns: city, Count, Avg of price, Max of price
    /// ```
    public struct Aggregator: Hashable, Sendable {
        /// The operations to apply, in order; each makes a column.
        public var operations: [MLDataTable.Aggregator.Operations]
        /// The column the operations read.
        public var columnName: String

        /// An aggregator applying `operations` to the column named `columnNamed`.
        public init(operations: MLDataTable.Aggregator.Operations..., of columnNamed: String) {
            self.operations = operations
            columnName = columnNamed
        }

        /// What an aggregator computes over the values of one group. Missing values are skipped by
        /// every operation except `count`, which counts rows.
        ///
        /// The result column of each operation is named as Turi Create (Create ML's engine) names
        /// it — ours: Create ML does not document the names: `Count`, `Count Distinct of x`,
        /// `Sum of x`, `Avg of x`, `Min of x`, `Max of x`, `Stdv of x`, `Var of x`, `List of x`.
        public enum Operations: Hashable, Sendable {
            /// The number of rows in the group (an integer).
            case count
            /// The number of different values in the group (an integer).
            case distinctCount
            /// The sum of the numbers (an integer for an integer column, else a double).
            case sum
            /// The arithmetic mean of the numbers (a double).
            case mean
            /// The smallest value (numbers or strings).
            case min
            /// The largest value (numbers or strings).
            case max
            /// The population standard deviation of the numbers (a double).
            case stdev
            /// The population variance of the numbers (a double).
            case variance
            /// The group's values in row order, as a sequence (missing values skipped).
            case sequenceMerge

            func columnName(of column: String) -> String {
                switch self {
                case .count: return "Count"
                case .distinctCount: return "Count Distinct of \(column)"
                case .sum: return "Sum of \(column)"
                case .mean: return "Avg of \(column)"
                case .min: return "Min of \(column)"
                case .max: return "Max of \(column)"
                case .stdev: return "Stdv of \(column)"
                case .variance: return "Var of \(column)"
                case .sequenceMerge: return "List of \(column)"
                }
            }
        }
    }
}
