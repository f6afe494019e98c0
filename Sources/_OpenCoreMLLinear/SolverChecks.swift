/// The checks the linear models' `fit` share, throwing a `SolverError` that names the setting, or
/// the row and column.
enum SolverChecks {
    /// The stopping settings: at least one iteration, finite tolerances ≥ 0, at least one curvature pair.
    static func settings(_ owner: String, maxIterations: Int, gradientTolerance: Double, relativeLossTolerance: Double,
                         historySize: Int) throws {
        guard maxIterations >= 1 else {
            throw SolverError("\(owner).maxIterations", "must be at least 1, got \(maxIterations)")
        }
        for (name, value) in [("gradientTolerance", gradientTolerance), ("relativeLossTolerance", relativeLossTolerance)]
        where !(value.isFinite && value >= 0) {
            throw SolverError("\(owner).\(name)", "must be a finite number ≥ 0, got \(value)")
        }
        guard historySize >= 1 else {
            throw SolverError("\(owner).historySize", "must be at least 1, got \(historySize)")
        }
    }

    /// `features` holds `rowCount` (≥ 1) rows of `featureCount` (≥ 1) finite values; `perRow`
    /// names what there is one of per row ("labels", "targets").
    static func rows<Value: BinaryFloatingPoint>(_ owner: String, features: [Value], featureCount: Int, rowCount: Int, perRow: String) throws {
        guard featureCount >= 1 else { throw SolverError("\(owner).fit", "featureCount must be at least 1, got \(featureCount)") }
        guard rowCount > 0 else { throw SolverError("\(owner).fit", "no training rows") }
        guard features.count == rowCount * featureCount else {
            throw SolverError("\(owner).fit",
                              "\(features.count) feature values for \(rowCount) \(perRow); expected \(rowCount) rows × \(featureCount) = \(rowCount * featureCount)")
        }
        if let index = features.firstIndex(where: { !$0.isFinite }) {
            throw SolverError("\(owner).fit",
                              "features: row \(index / featureCount), column \(index % featureCount) is \(features[index]), not a finite number")
        }
    }
}
