/// The data checks the linear models' `fit` share, throwing a `SolverError` that names the row and column.
enum SolverChecks {
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
