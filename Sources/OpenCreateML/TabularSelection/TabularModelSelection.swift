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

/// A candidate ``MLClassifier`` and ``MLRegressor`` can train: with its default parameters but
/// the selection's validation option.
protocol TabularSelectable: TabularCandidate {
    init(selecting selection: TabularModelSelection) throws
}

extension TabularTreeModel: TabularSelectable {
    init(selecting selection: TabularModelSelection) throws {
        var parameters = Parameters()
        parameters.validation = selection.validation
        try self.init(trainingData: selection.table, targetColumn: selection.targetColumn, featureColumns: selection.featureColumns,
                      parameters: parameters)
    }
}

extension MLLogisticRegressionClassifier: TabularSelectable {
    init(selecting selection: TabularModelSelection) throws {
        try self.init(trainingData: selection.table, targetColumn: selection.targetColumn, featureColumns: selection.featureColumns,
                      parameters: .init(validation: selection.validation))
    }
}

extension MLLinearRegressor: TabularSelectable {
    init(selecting selection: TabularModelSelection) throws {
        try self.init(trainingData: selection.table, targetColumn: selection.targetColumn, featureColumns: selection.featureColumns,
                      parameters: .init(validation: selection.validation))
    }
}

extension MLClassifier: TabularCandidate {}
extension MLRegressor: TabularCandidate {}

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
struct TabularModelSelection {
    let table: MLDataTable
    let targetColumn: String
    let featureColumns: [String]?
    /// `.split(strategy: .automatic)` for every candidate.
    let validation: TabularValidationData = .split(strategy: .automatic)

    /// A candidate of type `T` trained with the selection's table, columns and validation.
    func train<T: TabularSelectable>(_ type: T.Type = T.self) throws -> T { try T(selecting: self) }

    /// Whether the linear candidate's one-hot rows of the table fit in memory.
    func linearFits(task: TabularTask) throws -> Bool {
        let columns = try TabularColumns(fitting: table, targetColumn: targetColumn, featureColumns: featureColumns, task: task)
        do {
            try columns.checkLinearFits(rows: table.rowCount)
            return true
        } catch {
            return false
        }
    }

    /// The best of the candidates `make` trains, by `score` of the validation metrics (the
    /// training metrics when the table is too small to split; nil: invalid, passed over).
    static func select<Choice: TabularCandidate>(_ table: MLDataTable, targetColumn: String, featureColumns: [String]?,
                                                 make: (TabularModelSelection) throws -> [Choice],
                                                 score: (Choice.Metrics) -> Double?) throws -> Choice {
        if let failure = table.failure { throw failure }
        let usesValidation = MLSplitStrategy.automatic.validationRowCount(rows: table.rowCount) > 0
        let candidates = try make(TabularModelSelection(table: table, targetColumn: targetColumn, featureColumns: featureColumns))
        return candidates[best(candidates) { score(usesValidation ? $0.validationMetrics : $0.trainingMetrics) }]
    }

    /// The index of the best candidate by `score` (larger is better; nil: the candidate's metrics
    /// are invalid and it is passed over), the first among equals; the first candidate when none
    /// has a score.
    static func best<T>(_ candidates: [T], score: (T) -> Double?) -> Int {
        var best: (index: Int, score: Double)?
        for index in candidates.indices {
            guard let value = score(candidates[index]), !value.isNaN else { continue }
            if best.map({ value > $0.score }) ?? true { best = (index, value) }
        }
        return best?.index ?? 0
    }
}
