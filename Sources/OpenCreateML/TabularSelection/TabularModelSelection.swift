import Foundation
import OpenCoreML

/// What ``MLClassifier`` and ``MLRegressor`` need of each candidate: the public members every
/// tabular classifier (`Metrics` = `MLClassifierMetrics`) and regressor (`MLRegressorMetrics`) has.
protocol TabularCandidate<Metrics> {
    associatedtype Metrics
    var targetColumn: String { get }
    var featureColumns: [String] { get }
    var trainingMetrics: Metrics { get }
    var validationMetrics: Metrics { get }
    func evaluation(on labeledData: MLDataTable) -> Metrics
    func predictions(from data: MLDataTable) throws -> MLUntypedColumn
    var model: MLModel { get throws }
    func write(to fileURL: URL, metadata: MLModelMetadata?) throws
}

extension TabularTreeModel: TabularCandidate {}
extension MLLogisticRegressionClassifier: TabularCandidate {}
extension MLLinearRegressor: TabularCandidate {}

/// How ``MLClassifier`` and ``MLRegressor`` choose among their candidates: every candidate gets
/// `.split(strategy: .automatic)` (Create ML's rule, ``MLSplitStrategy/validationRowCount(rows:)``,
/// with its fixed seed, so all of them set aside the same rows), learns its classes and categories
/// from the whole table as each trainer's own split does (a class that lands only in the
/// validation rows is still a class), and the best validation accuracy (classifiers) or RMSE
/// (regressors) wins — on the training metrics when the table is too small to split. Candidates
/// whose metrics are invalid are passed over; ties go to the earlier candidate.
///
/// The linear candidate (logistic or linear regression) is left out when its dense one-hot rows
/// would not fit in memory (``TabularColumns/checkLinearFits(rows:memoryLimit:)``: a String column
/// with very many categories); the tree candidates code categories without one-hot.
enum TabularModelSelection {
    /// The validation option every candidate gets, and whether the selection reads validation
    /// metrics (false: the table is too small to split, so training metrics decide).
    static func validation(for table: MLDataTable) throws -> (validation: TabularValidationData, usesValidation: Bool) {
        if let failure = table.failure { throw failure }
        return (.split(strategy: .automatic), MLSplitStrategy.automatic.validationRowCount(rows: table.rowCount) > 0)
    }

    /// Whether the linear candidate's one-hot rows of `table` fit in memory.
    static func linearFits(_ table: MLDataTable, targetColumn: String, featureColumns: [String]?, task: TabularTask) throws -> Bool {
        let columns = try TabularColumns(fitting: table, targetColumn: targetColumn, featureColumns: featureColumns, task: task)
        do {
            try columns.checkLinearFits(rows: table.rowCount)
            return true
        } catch {
            return false
        }
    }

    /// The index of the best candidate by `score` (larger is better; nil: the candidate's metrics
    /// are invalid and it is passed over), the first among equals; the first candidate when none
    /// has a score.
    static func best<T>(_ candidates: [T], score: (T) -> Double?) -> Int {
        var best: (index: Int, score: Double)?
        for index in candidates.indices {
            guard let value = score(candidates[index]), !value.isNaN else { continue }
            if best == nil || value > best!.score { best = (index, value) }
        }
        return best?.index ?? 0
    }
}
