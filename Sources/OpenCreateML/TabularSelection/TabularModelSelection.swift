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

/// How ``MLClassifier`` and ``MLRegressor`` choose among their candidates: the table's validation
/// rows are split off once (Create ML's automatic rule, ``MLSplitStrategy/validationRowCount(rows:)``),
/// every candidate trains on the rest with its default parameters and those validation rows, and
/// the best validation accuracy (classifiers) or RMSE (regressors) wins — on the training metrics
/// when the table is too small to split. Ties go to the earlier candidate.
enum TabularModelSelection {
    /// The training rows and the validation option every candidate gets.
    static func validation(for table: MLDataTable) throws -> (training: MLDataTable, validation: TabularValidationData) {
        let (training, validation) = try TabularValidationData.split(strategy: .automatic).tables(from: table, location: "model selection")
        return (training, validation.map { .table($0) } ?? .none)
    }

    /// The index of the best candidate by `score` (larger is better), the first among equals.
    static func best<T>(_ candidates: [T], score: (T) -> Double) -> Int {
        var best = 0
        for index in candidates.indices.dropFirst() where score(candidates[index]) > score(candidates[best]) { best = index }
        return best
    }
}
