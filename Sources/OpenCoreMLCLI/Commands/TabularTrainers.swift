import ArgumentParser
import Foundation
import OpenCoreML
import OpenCreateML

/// The trainers' options of `tabular train`, each with the algorithms that use it.
struct TabularHyperparameters: ParsableArguments {
    @Option(help: "Trees: the deepest a tree grows (default 6).")
    var maxDepth: Int?

    @Option(help: "Boosted trees: rounds (trees per output); random forest: trees; linear, logistic: solver iterations (default 10).")
    var maxIterations: Int?

    @Option(help: "Boosted trees: the learning rate (default 0.3); linear: the solver's step size.")
    var stepSize: Double?

    @Option(help: "Trees: the least hessian sum a child keeps (default 0.1).")
    var minChildWeight: Double?

    @Option(help: "Trees: the least loss reduction a split must make (default 0).")
    var minLossReduction: Double?

    @Option(help: "Boosted trees, random forest: the fraction of rows each tree sees (default 1.0; forest 0.8).")
    var rowSubsample: Double?

    @Option(help: "Boosted trees, random forest: the fraction of features each tree sees (default 1.0; forest 0.8).")
    var columnSubsample: Double?

    @Option(help: "Boosted trees: stop when the validation metric has not improved for this many rounds.")
    var earlyStoppingRounds: Int?

    @Option(help: "Linear, logistic: the L1 penalty (default 0).")
    var l1: Double?

    @Option(help: "Linear, logistic: the L2 penalty (default 0.01).")
    var l2: Double?

    @Option(help: "Linear, logistic: the convergence threshold (default 0.01).")
    var convergenceThreshold: Double?

    /// An option given on the command line and the algorithms that use it.
    struct Given {
        let flag: String
        let algorithms: Set<Tabular.Algorithm>
    }

    /// The options given, for `validate` to refuse those the algorithm does not use.
    var given: [Given] {
        let trees: Set<Tabular.Algorithm> = [.boostedTree, .randomForest, .decisionTree]
        let ensembles: Set<Tabular.Algorithm> = [.boostedTree, .randomForest]
        let linear: Set<Tabular.Algorithm> = [.linear, .logistic]
        let all: [(String, Bool, Set<Tabular.Algorithm>)] = [
            ("--max-depth", maxDepth != nil, trees),
            ("--max-iterations", maxIterations != nil, ensembles.union(linear)),
            ("--step-size", stepSize != nil, [.boostedTree, .linear, .logistic]),
            ("--min-child-weight", minChildWeight != nil, trees),
            ("--min-loss-reduction", minLossReduction != nil, trees),
            ("--row-subsample", rowSubsample != nil, ensembles),
            ("--column-subsample", columnSubsample != nil, ensembles),
            ("--early-stopping-rounds", earlyStoppingRounds != nil, [.boostedTree]),
            ("--l1", l1 != nil, linear),
            ("--l2", l2 != nil, linear),
            ("--convergence-threshold", convergenceThreshold != nil, linear),
        ]
        return all.filter(\.1).map { Given(flag: $0.0, algorithms: $0.2) }
    }

    /// The most iterations `algorithm` runs (the progress bar's length); nil for `auto`.
    func iterationCount(for algorithm: Tabular.Algorithm) -> Int? {
        switch algorithm {
        case .decisionTree: return 1
        case .auto: return nil
        default: return maxIterations ?? 10
        }
    }

    func applyTree<P: TabularTreeParameters>(to parameters: inout P, seed: Int?) {
        if let maxDepth { parameters.maxDepth = maxDepth }
        if let minChildWeight { parameters.minChildWeight = minChildWeight }
        if let minLossReduction { parameters.minLossReduction = minLossReduction }
        if let seed { parameters.randomSeed = seed }
    }

    func applyEnsemble<P: TabularEnsembleParameters>(to parameters: inout P, seed: Int?) {
        applyTree(to: &parameters, seed: seed)
        if let maxIterations { parameters.maxIterations = maxIterations }
        if let rowSubsample { parameters.rowSubsample = rowSubsample }
        if let columnSubsample { parameters.columnSubsample = columnSubsample }
    }

    func applyBoosting<P: TabularBoostingParameters>(to parameters: inout P, seed: Int?) {
        applyEnsemble(to: &parameters, seed: seed)
        if let stepSize { parameters.stepSize = stepSize }
        if let earlyStoppingRounds { parameters.earlyStoppingRounds = earlyStoppingRounds }
    }

    func applyLinear<P: TabularLinearParameters>(to parameters: inout P) {
        if let maxIterations { parameters.maxIterations = maxIterations }
        if let stepSize { parameters.stepSize = stepSize }
        if let l1 { parameters.l1Penalty = l1 }
        if let l2 { parameters.l2Penalty = l2 }
        if let convergenceThreshold { parameters.convergenceThreshold = convergenceThreshold }
    }
}

// MARK: - What the command needs of the library's parameters and trainers

/// A trainer's `ModelParameters.ValidationData` (Create ML's cases).
protocol TabularValidationSetting {
    static func split(strategy: MLSplitStrategy) -> Self
    static func table(_ table: MLDataTable) -> Self
    static var none: Self { get }
}

protocol TabularParameters {
    associatedtype Validation: TabularValidationSetting
    /// Create ML's defaults (`ModelParameters()`, whose arguments all have defaults).
    static var defaults: Self { get }
    var validation: Validation { get set }
}

protocol TabularTreeParameters: TabularParameters {
    var maxDepth: Int { get set }
    var minChildWeight: Double { get set }
    var minLossReduction: Double { get set }
    var randomSeed: Int { get set }
}

protocol TabularEnsembleParameters: TabularTreeParameters {
    var maxIterations: Int { get set }
    var rowSubsample: Double { get set }
    var columnSubsample: Double { get set }
}

protocol TabularBoostingParameters: TabularEnsembleParameters {
    var stepSize: Double { get set }
    var earlyStoppingRounds: Int? { get set }
}

protocol TabularLinearParameters: TabularParameters {
    var maxIterations: Int { get set }
    var stepSize: Double { get set }
    var l1Penalty: Double { get set }
    var l2Penalty: Double { get set }
    var convergenceThreshold: Double { get set }
}

/// A trainer of Create ML's tabular family, as the command calls it.
protocol TabularTrainer {
    associatedtype Parameters: TabularParameters
    associatedtype Metrics: TabularMetricsConvertible
    init(trainingData: MLDataTable, targetColumn: String, featureColumns: [String]?, parameters: Parameters,
         progress: ((TabularTrainingIteration) -> Bool)?) throws
    var trainingMetrics: Metrics { get }
    var validationMetrics: Metrics { get }
    var iterations: [TabularTrainingIteration] { get }
    func write(to url: URL, metadata: MLModelMetadata?) throws
}

// The six tree trainers are one generic type (MLBoostedTreeClassifier is
// TabularTreeModel<BoostedTreeModelParameters, TreeClassification>), both linear trainers share
// LinearModelParameters, and every trainer's ValidationData is TabularValidationData: one
// conformance each.
extension TabularTreeModel: TabularTrainer where Parameters: TabularParameters, Task.Metrics: TabularMetricsConvertible {}
extension MLLinearRegressor: TabularTrainer {}
extension MLLogisticRegressionClassifier: TabularTrainer {}

extension BoostedTreeModelParameters: TabularBoostingParameters { static var defaults: Self { Self() } }
extension RandomForestModelParameters: TabularEnsembleParameters { static var defaults: Self { Self() } }
extension DecisionTreeModelParameters: TabularTreeParameters { static var defaults: Self { Self() } }
extension LinearModelParameters: TabularLinearParameters { static var defaults: Self { Self() } }

extension TabularValidationData: TabularValidationSetting {}

/// `MLClassifierMetrics` or `MLRegressorMetrics`.
protocol TabularMetricsConvertible {
    var tabularMetrics: TabularMetrics { get }
}

extension MLClassifierMetrics: TabularMetricsConvertible {
    var tabularMetrics: TabularMetrics { .classifier(self) }
}

extension MLRegressorMetrics: TabularMetricsConvertible {
    var tabularMetrics: TabularMetrics { .regressor(self) }
}

// MARK: - Training

/// Metrics of either kind.
enum TabularMetrics {
    case classifier(MLClassifierMetrics)
    case regressor(MLRegressorMetrics)

    var exampleCount: Int {
        switch self {
        case .classifier(let metrics): return metrics.exampleCount
        case .regressor(let metrics): return metrics.exampleCount
        }
    }

    /// `accuracy 96.49%` or `RMSE 52.1 (max error 160)`.
    var summary: String {
        switch self {
        case .classifier(let metrics): return String(format: "accuracy %.2f%%", metrics.accuracy * 100)
        case .regressor(let metrics): return String(format: "RMSE %.4g (max error %.4g)", metrics.rootMeanSquaredError, metrics.maximumError)
        }
    }

    /// The log's keys: `accuracy` or `rmse` and `maxError`, with the prefix.
    func fields(_ prefix: String) -> [(String, TrainingLog.Value?)] {
        switch self {
        case .classifier(let metrics): return [(prefix + "Accuracy", .number(metrics.accuracy))]
        case .regressor(let metrics): return [(prefix + "RMSE", .number(metrics.rootMeanSquaredError)), (prefix + "MaxError", .number(metrics.maximumError))]
        }
    }
}

/// A trained model, whichever trainer made it.
struct TabularResult {
    /// The algorithm that made the model (for `auto`, the one it chose).
    var algorithm: Tabular.Algorithm
    var chosenAutomatically: Bool
    var iterations: [TabularTrainingIteration]
    var training: TabularMetrics
    /// Nil without validation rows.
    var validation: TabularMetrics?
    var write: (URL, MLModelMetadata?) throws -> Void

    init<T: TabularTrainer>(_ trainer: T, algorithm: Tabular.Algorithm, chosenAutomatically: Bool = false) {
        self.algorithm = algorithm
        self.chosenAutomatically = chosenAutomatically
        iterations = trainer.iterations
        training = trainer.trainingMetrics.tabularMetrics
        let validation = trainer.validationMetrics.tabularMetrics
        self.validation = validation.exampleCount > 0 ? validation : nil
        write = { url, metadata in try trainer.write(to: url, metadata: metadata) }
    }

    /// `boosted-tree classifier of 'label': 2 classes, 30 features`.
    func headline(task: Tabular.Task, features: [String], target: String) -> String {
        let kind = "\(algorithm.rawValue) \(task == .classification ? "classifier" : "regressor")"
        var text = (chosenAutomatically ? "auto chose the \(kind)" : kind) + " of '\(target)'"
        if case .classifier(let metrics) = training {
            text += ": \(metrics.classLabels.count) classes"
        }
        return text + (task == .classification ? ", " : ": ") + "\(features.count) features"
    }

    var metricsLine: String {
        "training \(training.summary)" + (validation.map { "   validation \($0.summary)" } ?? "")
    }

    /// The `--log` summary line.
    func summaryFields(task: Tabular.Task, rows: Int, features: Int, loadSeconds: Double, fitSeconds: Double) -> [(String, TrainingLog.Value?)] {
        [("summary", .text("\(algorithm.rawValue) \(task.rawValue)")), ("algorithm", .text(algorithm.rawValue)), ("task", .text(task.rawValue)),
         ("rows", .number(Double(rows))), ("trainingRows", .number(Double(training.exampleCount))),
         ("validationRows", .number(Double(validation?.exampleCount ?? 0))), ("features", .number(Double(features))),
         ("iterations", .number(Double(iterations.count)))]
            + training.fields("training") + (validation?.fields("validation") ?? [])
            + [("loadSeconds", .number((loadSeconds * 1000).rounded() / 1000)), ("fitSeconds", .number((fitSeconds * 1000).rounded() / 1000))]
    }
}

/// One training run as the command line describes it.
struct TabularTrainingRequest {
    let table: MLDataTable
    let target: String
    let features: [String]
    let validation: TabularValidation.Setting
    let seed: Int?
    let hyperparameters: TabularHyperparameters

    func train(task: Tabular.Task, algorithm: Tabular.Algorithm, progress: TabularProgress) throws -> TabularResult {
        let handler = progress.handler
        switch (task, algorithm) {
        case (.classification, .boostedTree):
            return try boosted(MLBoostedTreeClassifier.self, algorithm, handler)
        case (.regression, .boostedTree):
            return try boosted(MLBoostedTreeRegressor.self, algorithm, handler)
        case (.classification, .randomForest):
            return try ensemble(MLRandomForestClassifier.self, algorithm, handler)
        case (.regression, .randomForest):
            return try ensemble(MLRandomForestRegressor.self, algorithm, handler)
        case (.classification, .decisionTree):
            return try tree(MLDecisionTreeClassifier.self, algorithm, handler)
        case (.regression, .decisionTree):
            return try tree(MLDecisionTreeRegressor.self, algorithm, handler)
        case (.regression, .linear):
            return try linear(MLLinearRegressor.self, algorithm, handler)
        case (.classification, .logistic):
            return try linear(MLLogisticRegressionClassifier.self, algorithm, handler)
        case (.classification, .auto):
            return try automaticClassifier()
        case (.regression, .auto):
            return try automaticRegressor()
        case (.classification, .linear), (.regression, .logistic):
            throw CLIError.model("--algorithm \(algorithm.rawValue) cannot do \(task.rawValue) (the target '\(target)' is inferred to be a \(task.rawValue) target; see --task)")
        }
    }

    private func parameters<P: TabularParameters>(_: P.Type) -> P {
        var parameters = P.defaults
        switch validation {
        case .automatic: parameters.validation = .split(strategy: .automatic)
        case .none: parameters.validation = .none
        case .fraction(let ratio, let seed): parameters.validation = .split(strategy: .fixed(ratio: ratio, seed: seed))
        case .table(let table): parameters.validation = .table(table)
        }
        return parameters
    }

    private func boosted<T: TabularTrainer>(_ type: T.Type, _ algorithm: Tabular.Algorithm, _ handler: @escaping @Sendable (TabularTrainingIteration) -> Bool) throws -> TabularResult
    where T.Parameters: TabularBoostingParameters {
        var parameters = parameters(T.Parameters.self)
        hyperparameters.applyBoosting(to: &parameters, seed: seed)
        return try make(type, parameters, algorithm, handler)
    }

    private func ensemble<T: TabularTrainer>(_ type: T.Type, _ algorithm: Tabular.Algorithm, _ handler: @escaping @Sendable (TabularTrainingIteration) -> Bool) throws -> TabularResult
    where T.Parameters: TabularEnsembleParameters {
        var parameters = parameters(T.Parameters.self)
        hyperparameters.applyEnsemble(to: &parameters, seed: seed)
        return try make(type, parameters, algorithm, handler)
    }

    private func tree<T: TabularTrainer>(_ type: T.Type, _ algorithm: Tabular.Algorithm, _ handler: @escaping @Sendable (TabularTrainingIteration) -> Bool) throws -> TabularResult
    where T.Parameters: TabularTreeParameters {
        var parameters = parameters(T.Parameters.self)
        hyperparameters.applyTree(to: &parameters, seed: seed)
        return try make(type, parameters, algorithm, handler)
    }

    private func linear<T: TabularTrainer>(_ type: T.Type, _ algorithm: Tabular.Algorithm, _ handler: @escaping @Sendable (TabularTrainingIteration) -> Bool) throws -> TabularResult
    where T.Parameters: TabularLinearParameters {
        var parameters = parameters(T.Parameters.self)
        hyperparameters.applyLinear(to: &parameters)
        return try make(type, parameters, algorithm, handler)
    }

    private func make<T: TabularTrainer>(_ type: T.Type, _ parameters: T.Parameters, _ algorithm: Tabular.Algorithm,
                                         _ handler: @escaping @Sendable (TabularTrainingIteration) -> Bool) throws -> TabularResult {
        TabularResult(try T(trainingData: table, targetColumn: target, featureColumns: features, parameters: parameters, progress: handler),
                      algorithm: algorithm)
    }

    private func automaticClassifier() throws -> TabularResult {
        switch try MLClassifier(trainingData: table, targetColumn: target, featureColumns: features) {
        case .boostedTree(let model): return TabularResult(model, algorithm: .boostedTree, chosenAutomatically: true)
        case .randomForest(let model): return TabularResult(model, algorithm: .randomForest, chosenAutomatically: true)
        case .decisionTree(let model): return TabularResult(model, algorithm: .decisionTree, chosenAutomatically: true)
        case .logisticRegression(let model): return TabularResult(model, algorithm: .logistic, chosenAutomatically: true)
        }
    }

    private func automaticRegressor() throws -> TabularResult {
        switch try MLRegressor(trainingData: table, targetColumn: target, featureColumns: features) {
        case .boostedTree(let model): return TabularResult(model, algorithm: .boostedTree, chosenAutomatically: true)
        case .randomForest(let model): return TabularResult(model, algorithm: .randomForest, chosenAutomatically: true)
        case .decisionTree(let model): return TabularResult(model, algorithm: .decisionTree, chosenAutomatically: true)
        case .linear(let model): return TabularResult(model, algorithm: .linear, chosenAutomatically: true)
        }
    }
}
