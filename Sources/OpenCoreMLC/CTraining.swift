import COpenCoreML
import CoreMLSpec
import Foundation
import OpenCoreML
import OpenCreateML

// MARK: - Training through the C interface

/// What `ocm_train`'s `options_json` may hold: Turi Create's parameter names, each optional
/// (absent: the trainer's default). Unknown keys are an error, so a misspelt option is not ignored.
struct TrainingOptions: Decodable {
    var target: String
    var features: [String]?
    var sessionId: String?
    /// "auto" (the trainer's automatic split), "none", or "table" (the `validation` table).
    var validation: String?
    var maxIterations: Int?
    var l1Penalty: Double?
    var l2Penalty: Double?
    var convergenceThreshold: Double?
    var stepSize: Double?
    var featureRescaling: Bool?
    var maxDepth: Int?
    var minLossReduction: Double?
    var minChildWeight: Double?
    var rowSubsample: Double?
    var columnSubsample: Double?
    var earlyStoppingRounds: Int?
    var randomSeed: Int?
    var predictionWindow: Int?
    var batchSize: Int?
    var batchnormStatistics: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case target, features, sessionId = "session_id", validation, maxIterations = "max_iterations", l1Penalty = "l1_penalty"
        case l2Penalty = "l2_penalty", convergenceThreshold = "convergence_threshold", stepSize = "step_size"
        case featureRescaling = "feature_rescaling", maxDepth = "max_depth", minLossReduction = "min_loss_reduction"
        case minChildWeight = "min_child_weight", rowSubsample = "row_subsample", columnSubsample = "column_subsample"
        case earlyStoppingRounds = "early_stopping_rounds", randomSeed = "random_seed", predictionWindow = "prediction_window"
        case batchSize = "batch_size", batchnormStatistics = "batchnorm_statistics"
    }

    static func parse(_ json: String) throws -> TrainingOptions {
        let data = Data(json.utf8)
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw CInterfaceError.argument("options_json is not a JSON object")
        }
        let known = Set(CodingKeys.allCases.map(\.rawValue))
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
            throw CInterfaceError(OCM_ERROR_PARAMETERS, "options_json: unknown option '\(unknown)'")
        }
        do { return try JSONDecoder().decode(TrainingOptions.self, from: data) } catch let DecodingError.typeMismatch(_, context),
            let DecodingError.valueNotFound(_, context) {
            throw CInterfaceError(OCM_ERROR_PARAMETERS, "options_json: '\(context.codingPath.map(\.stringValue).joined(separator: "."))' has the wrong type (\(context.debugDescription))")
        } catch let DecodingError.keyNotFound(key, _) {
            throw CInterfaceError(OCM_ERROR_PARAMETERS, "options_json: '\(key.stringValue)' is required")
        }
    }
}

/// Reports progress events (JSON objects) to the caller's callback; its non-zero return stops training.
struct ProgressReporter: @unchecked Sendable {
    let callback: ocm_progress_fn?
    let context: UnsafeMutableRawPointer?
    /// Set once the callback asked to stop.
    final class Flag: @unchecked Sendable { var stopped = false }
    let flag = Flag()

    /// Sends `event`; false when the caller asked to stop (now or before).
    @discardableResult
    func send(_ event: [String: Any]) -> Bool {
        guard !flag.stopped else { return false }
        guard let callback else { return true }
        guard let data = try? JSONSerialization.data(withJSONObject: event, options: [.sortedKeys]),
              let text = String(data: data, encoding: .utf8) else { return true }
        let stop = text.withCString { callback(context, $0) }
        if stop != 0 { flag.stopped = true }
        return stop == 0
    }

    func iteration(_ step: TabularTrainingIteration) -> Bool {
        send(iterationObject(step).merging(["kind": "iteration"]) { $1 })
    }
}

/// A number JSON can hold (NaN and infinities become null).
func json(_ value: Double) -> Any { value.isFinite ? value : NSNull() }

/// One training iteration as the report and the progress events give it.
func iterationObject(_ step: TabularTrainingIteration) -> [String: Any] {
    ["iteration": step.iteration, "training_loss": json(step.trainingLoss), "validation_loss": step.validationLoss.map(json) ?? NSNull(),
     "training_metric": json(step.trainingMetric), "validation_metric": step.validationMetric.map(json) ?? NSNull(),
     "metric": step.metric.rawValue, "seconds": step.seconds]
}

/// An activity classifier's pass, in the same form (its metric is the training windows' accuracy; no validation loss).
func iterationObject(_ step: MLActivityClassifier.Iteration) -> [String: Any] {
    iterationObject(TabularTrainingIteration(iteration: step.iteration, trainingLoss: step.loss, validationLoss: nil,
                                             trainingMetric: step.trainingAccuracy, validationMetric: step.validationAccuracy,
                                             metric: .accuracy, seconds: step.seconds))
}

/// What a trained model reports back: metrics, iterations, classes, and for linear models the
/// coefficients (read from the written model).
struct TrainingReport {
    var kind: String
    var classes: [String]?
    var features: [String]
    var iterations: [TabularTrainingIteration] = []
    var activityIterations: [MLActivityClassifier.Iteration] = []
    var trainingAccuracy: Double?
    var validationAccuracy: Double?
    var trainingRMSE: Double?
    var validationRMSE: Double?
    var trainingMaxError: Double?
    var validationMaxError: Double?
    var extra: [String: Any] = [:]

    mutating func classifier(_ training: MLClassifierMetrics, _ validation: MLClassifierMetrics) {
        trainingAccuracy = training.isValid && training.exampleCount > 0 ? training.accuracy : nil
        validationAccuracy = validation.isValid && validation.exampleCount > 0 ? validation.accuracy : nil
    }

    mutating func regressor(_ training: MLRegressorMetrics, _ validation: MLRegressorMetrics) {
        trainingRMSE = training.isValid ? training.rootMeanSquaredError : nil
        trainingMaxError = training.isValid ? training.maximumError : nil
        validationRMSE = validation.isValid && validation.exampleCount > 0 ? validation.rootMeanSquaredError : nil
        validationMaxError = validation.isValid && validation.exampleCount > 0 ? validation.maximumError : nil
    }

    func object(seconds: Double, stopped: Bool) -> [String: Any] {
        var object = extra
        object["model"] = kind
        object["features"] = features
        object["classes"] = classes ?? NSNull()
        object["training_time"] = seconds
        object["stopped"] = stopped
        object["training_accuracy"] = trainingAccuracy.map(json) ?? NSNull()
        object["validation_accuracy"] = validationAccuracy.map(json) ?? NSNull()
        object["training_rmse"] = trainingRMSE.map(json) ?? NSNull()
        object["validation_rmse"] = validationRMSE.map(json) ?? NSNull()
        object["training_max_error"] = trainingMaxError.map(json) ?? NSNull()
        object["validation_max_error"] = validationMaxError.map(json) ?? NSNull()
        object["iterations"] = iterations.map(iterationObject) + activityIterations.map(iterationObject)
        return object
    }
}

/// The toolkits `ocm_train` knows, by Turi Create's module name.
enum Toolkit: String, CaseIterable {
    case logisticClassifier = "logistic_classifier"
    case linearRegression = "linear_regression"
    case boostedTreesClassifier = "boosted_trees_classifier"
    case boostedTreesRegression = "boosted_trees_regression"
    case randomForestClassifier = "random_forest_classifier"
    case randomForestRegression = "random_forest_regression"
    case decisionTreeClassifier = "decision_tree_classifier"
    case decisionTreeRegression = "decision_tree_regression"
    case classifier
    case regression
    case activityClassifier = "activity_classifier"
}

@_cdecl("ocm_train")
public func ocmTrain(_ toolkit: UnsafePointer<CChar>?, _ training: OpaquePointer?, _ validation: OpaquePointer?,
                     _ optionsJSON: UnsafePointer<CChar>?, _ progress: ocm_progress_fn?, _ context: UnsafeMutableRawPointer?,
                     _ modelPath: UnsafePointer<CChar>?, _ error: UnsafeMutablePointer<OpaquePointer?>?) -> UnsafeMutablePointer<CChar>? {
    catching(error, failure: nil) {
        let name = try string(toolkit, "ocm_train: toolkit")
        guard let kind = Toolkit(rawValue: name) else {
            throw CInterfaceError.argument("ocm_train: unknown toolkit '\(name)' (known: \(Toolkit.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        guard let training else { throw CInterfaceError.argument("ocm_train: training is NULL") }
        let options = try TrainingOptions.parse(try string(optionsJSON, "ocm_train: options_json"))
        let path = try string(modelPath, "ocm_train: model_path")
        let table = Handle<CTable>.borrow(training).table
        let validationTable = validation.map { Handle<CTable>.borrow($0).table }
        let reporter = ProgressReporter(callback: progress, context: context)
        let start = Date()
        let report: TrainingReport
        do {
            report = try train(kind, table, validationTable, options, reporter, URL(fileURLWithPath: path))
        } catch let failure as CreateMLError {
            throw CInterfaceError(OCM_ERROR_PARAMETERS, failure.description)
        }
        let object = report.object(seconds: Date().timeIntervalSince(start), stopped: reporter.flag.stopped)
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return strdup(String(decoding: data, as: UTF8.self))
    }
}

/// The validation `options` ask for: the trainer's automatic split, none, or `table` (required then).
private enum ValidationChoice {
    case automatic, none, table(MLDataTable)

    init(_ options: TrainingOptions, _ table: MLDataTable?) throws {
        switch options.validation ?? "auto" {
        case "auto": self = .automatic
        case "none": self = .none
        case "table":
            guard let table else { throw CInterfaceError.argument("ocm_train: validation is \"table\" but no validation table was given") }
            self = .table(table)
        case let other: throw CInterfaceError(OCM_ERROR_PARAMETERS, "options_json: validation must be \"auto\", \"none\" or \"table\", not '\(other)'")
        }
    }

    /// As the tabular trainers take it.
    var tabular: TabularValidationData {
        switch self {
        case .automatic: .split(strategy: .automatic)
        case .none: .none
        case .table(let table): .table(table)
        }
    }

    /// As the activity classifier takes it.
    var activity: MLActivityClassifier.ModelParameters.Validation {
        switch self {
        case .automatic: .split(strategy: .automatic)
        case .none: .none
        case .table(let table): .table(table)
        }
    }
}

private func linearParameters(_ options: TrainingOptions, _ validation: TabularValidationData) -> LinearModelParameters {
    let defaults = LinearModelParameters()
    return LinearModelParameters(validation: validation, maxIterations: options.maxIterations ?? defaults.maxIterations,
                                 l1Penalty: options.l1Penalty ?? defaults.l1Penalty, l2Penalty: options.l2Penalty ?? defaults.l2Penalty,
                                 stepSize: options.stepSize ?? defaults.stepSize,
                                 convergenceThreshold: options.convergenceThreshold ?? defaults.convergenceThreshold,
                                 featureRescaling: options.featureRescaling ?? defaults.featureRescaling)
}

private func boostedParameters(_ options: TrainingOptions, _ validation: TabularValidationData) -> BoostedTreeModelParameters {
    let d = BoostedTreeModelParameters()
    return BoostedTreeModelParameters(validation: validation, maxDepth: options.maxDepth ?? d.maxDepth, maxIterations: options.maxIterations ?? d.maxIterations,
                                      minLossReduction: options.minLossReduction ?? d.minLossReduction, minChildWeight: options.minChildWeight ?? d.minChildWeight,
                                      randomSeed: options.randomSeed ?? d.randomSeed, stepSize: options.stepSize ?? d.stepSize,
                                      earlyStoppingRounds: options.earlyStoppingRounds, rowSubsample: options.rowSubsample ?? d.rowSubsample,
                                      columnSubsample: options.columnSubsample ?? d.columnSubsample)
}

private func forestParameters(_ options: TrainingOptions, _ validation: TabularValidationData) -> RandomForestModelParameters {
    let d = RandomForestModelParameters()
    return RandomForestModelParameters(validation: validation, maxDepth: options.maxDepth ?? d.maxDepth, maxIterations: options.maxIterations ?? d.maxIterations,
                                       minLossReduction: options.minLossReduction ?? d.minLossReduction, minChildWeight: options.minChildWeight ?? d.minChildWeight,
                                       randomSeed: options.randomSeed ?? d.randomSeed, rowSubsample: options.rowSubsample ?? d.rowSubsample,
                                       columnSubsample: options.columnSubsample ?? d.columnSubsample)
}

private func treeParameters(_ options: TrainingOptions, _ validation: TabularValidationData) -> DecisionTreeModelParameters {
    let d = DecisionTreeModelParameters()
    return DecisionTreeModelParameters(validation: validation, maxDepth: options.maxDepth ?? d.maxDepth,
                                       minLossReduction: options.minLossReduction ?? d.minLossReduction,
                                       minChildWeight: options.minChildWeight ?? d.minChildWeight, randomSeed: options.randomSeed ?? d.randomSeed)
}

/// Trains `kind` and writes its Core ML model to `url`.
private func train(_ kind: Toolkit, _ table: MLDataTable, _ validationTable: MLDataTable?, _ options: TrainingOptions,
                   _ reporter: ProgressReporter, _ url: URL) throws -> TrainingReport {
    let target = options.target, features = options.features
    let validation = try ValidationChoice(options, validationTable)
    let progress: (TabularTrainingIteration) -> Bool = { reporter.iteration($0) }
    /// One of the six tree trainers: trained, written, reported.
    func trainTrees<Parameters, Task>(_ kind: String, _ type: TabularTreeModel<Parameters, Task>.Type, _ parameters: Parameters) throws -> TrainingReport {
        let model = try TabularTreeModel<Parameters, Task>(trainingData: table, targetColumn: target, featureColumns: features,
                                                           parameters: parameters, progress: progress)
        try model.write(to: url)
        var report = TrainingReport(kind: kind, classes: nil, features: model.featureColumns, iterations: model.iterations)
        if let training = model.trainingMetrics as? MLClassifierMetrics, let validation = model.validationMetrics as? MLClassifierMetrics {
            report.classes = training.classLabels
            report.classifier(training, validation)
        } else if let training = model.trainingMetrics as? MLRegressorMetrics, let validation = model.validationMetrics as? MLRegressorMetrics {
            report.regressor(training, validation)
        }
        return report
    }
    switch kind {
    case .logisticClassifier:
        let model = try MLLogisticRegressionClassifier(trainingData: table, targetColumn: target, featureColumns: features,
                                                       parameters: linearParameters(options, validation.tabular), progress: progress)
        try model.write(to: url)
        var report = TrainingReport(kind: "LogisticClassifier", classes: model.classLabels, features: model.featureColumns, iterations: model.iterations)
        report.classifier(model.trainingMetrics, model.validationMetrics)
        report.extra["coefficients"] = try linearCoefficients(at: url, classes: model.classLabels)
        return report
    case .linearRegression:
        let model = try MLLinearRegressor(trainingData: table, targetColumn: target, featureColumns: features,
                                          parameters: linearParameters(options, validation.tabular), progress: progress)
        try model.write(to: url)
        var report = TrainingReport(kind: "LinearRegression", classes: nil, features: model.featureColumns, iterations: model.iterations)
        report.regressor(model.trainingMetrics, model.validationMetrics)
        report.extra["coefficients"] = try linearCoefficients(at: url, classes: nil)
        return report
    case .boostedTreesClassifier:
        return try trainTrees("BoostedTreesClassifier", MLBoostedTreeClassifier.self, boostedParameters(options, validation.tabular))
    case .boostedTreesRegression:
        return try trainTrees("BoostedTreesRegression", MLBoostedTreeRegressor.self, boostedParameters(options, validation.tabular))
    case .randomForestClassifier:
        return try trainTrees("RandomForestClassifier", MLRandomForestClassifier.self, forestParameters(options, validation.tabular))
    case .randomForestRegression:
        return try trainTrees("RandomForestRegression", MLRandomForestRegressor.self, forestParameters(options, validation.tabular))
    case .decisionTreeClassifier:
        return try trainTrees("DecisionTreeClassifier", MLDecisionTreeClassifier.self, treeParameters(options, validation.tabular))
    case .decisionTreeRegression:
        return try trainTrees("DecisionTreeRegression", MLDecisionTreeRegressor.self, treeParameters(options, validation.tabular))
    case .classifier:
        let model = try MLClassifier(trainingData: table, targetColumn: target, featureColumns: features)
        try model.write(to: url)
        let name = switch model {
        case .boostedTree: "BoostedTreesClassifier"
        case .randomForest: "RandomForestClassifier"
        case .decisionTree: "DecisionTreeClassifier"
        case .logisticRegression: "LogisticClassifier"
        }
        return chosenReport(name, model.featureColumns, classifier: (model.trainingMetrics, model.validationMetrics))
    case .regression:
        let model = try MLRegressor(trainingData: table, targetColumn: target, featureColumns: features)
        try model.write(to: url)
        let name = switch model {
        case .boostedTree: "BoostedTreesRegression"
        case .randomForest: "RandomForestRegression"
        case .decisionTree: "DecisionTreeRegression"
        case .linear: "LinearRegression"
        }
        return chosenReport(name, model.featureColumns, regressor: (model.trainingMetrics, model.validationMetrics))
    case .activityClassifier:
        return try trainActivityClassifier(table, validation, options, reporter, url)
    }
}

/// The report of the model `classifier.create` / `regression.create` chose.
private func chosenReport(_ kind: String, _ features: [String], classifier: (MLClassifierMetrics, MLClassifierMetrics)? = nil,
                          regressor: (MLRegressorMetrics, MLRegressorMetrics)? = nil) -> TrainingReport {
    var report = TrainingReport(kind: kind, classes: classifier?.0.classLabels, features: features)
    if let classifier { report.classifier(classifier.0, classifier.1) }
    if let regressor { report.regressor(regressor.0, regressor.1) }
    return report
}

private func trainActivityClassifier(_ table: MLDataTable, _ validation: ValidationChoice, _ options: TrainingOptions,
                                     _ reporter: ProgressReporter, _ url: URL) throws -> TrainingReport {
    var parameters = MLActivityClassifier.ModelParameters(validation: validation.activity, batchSize: options.batchSize, maximumIterations: options.maxIterations,
                                                          predictionWindowSize: options.predictionWindow)
    if let seed = options.randomSeed { parameters.seed = seed }
    if let name = options.batchnormStatistics {
        guard let statistics = MLActivityClassifier.ModelParameters.BatchNormStatistics(rawValue: name) else {
            throw CInterfaceError(OCM_ERROR_PARAMETERS, "options_json: batchnorm_statistics must be one of \(MLActivityClassifier.ModelParameters.BatchNormStatistics.allCases.map(\.rawValue).joined(separator: ", ")), not '\(name)'")
        }
        parameters.batchNormStatistics = statistics
    }
    let model = try MLActivityClassifier(
        trainingData: table, featureColumns: options.features, labelColumn: options.target, recordingFileColumn: options.sessionId,
        parameters: parameters,
        progress: { @Sendable event in
            switch event {
            case .stepFinished(let iteration, let step, let of, let loss):
                reporter.send(["kind": "step", "iteration": iteration, "step": step, "of": of, "loss": json(loss)])
            case .iterationFinished(let record):
                reporter.send(iterationObject(record).merging(["kind": "iteration"]) { $1 })
            }
        },
        shouldContinue: { !reporter.flag.stopped })
    try model.write(to: url)
    var report = TrainingReport(kind: "ActivityClassifier", classes: model.classLabels, features: model.featureColumns)
    report.activityIterations = model.iterations
    report.classifier(model.trainingMetrics, model.validationMetrics)
    report.extra["num_sessions"] = model.sessionCounts.training + model.sessionCounts.validation
    report.extra["validation_note"] = model.validationNote ?? NSNull()
    return report
}

// MARK: - Coefficients of a written linear model

/// The coefficients of the linear model at `url` as Turi Create lists them (an SFrame of `name`,
/// `index`, `class`, `value`): the intercept first as "(intercept)", then one row per value the
/// model reads — a number column by its name (index null), a string column once per category
/// (index the category), a vector column once per element (index "0", "1", …). A classifier lists
/// the weights of the second class for two classes (the logistic model's one weight vector, as
/// Turi does) and of every class for more (a softmax over all classes, where Turi's reference
/// class has none).
func linearCoefficients(at url: URL, classes: [String]?) throws -> [[String: Any]] {
    let spec = try CoreML_Specification_Model(serializedModel: Data(contentsOf: url), path: url.path)
    let models = spec.pipelineModels.isEmpty ? [spec] : spec.pipelineModels
    // The names of the values the final model reads, in the vectorizer's order.
    var categoriesByOutput: [String: (feature: String, categories: [String])] = [:]
    var names: [(name: String, index: Any)] = []
    for model in models {
        if case .oneHotEncoder? = model.type, let input = model.description_p.input.first, let output = model.description_p.output.first {
            categoriesByOutput[output.name] = (input.name, model.oneHotEncoder.stringCategories.vector)
        }
        if case .featureVectorizer? = model.type {
            for column in model.featureVectorizer.inputList {
                if let encoded = categoriesByOutput[column.inputColumn] {
                    names += encoded.categories.map { (encoded.feature, $0 as Any) }
                    if encoded.categories.isEmpty { names.append((encoded.feature, "" as Any)) }
                } else if column.inputDimensions > 1 {
                    names += (0..<Int(column.inputDimensions)).map { (column.inputColumn, String($0) as Any) }
                } else {
                    names.append((column.inputColumn, NSNull()))
                }
            }
        }
    }
    guard let final = models.last else { return [] }
    var rows: [[String: Any]] = []
    func add(_ label: Any, _ intercept: Double, _ weights: [Double]) {
        rows.append(["name": "(intercept)", "index": NSNull(), "class": label, "value": intercept])
        for (position, weight) in weights.enumerated() {
            let name: (name: String, index: Any) = position < names.count ? names[position] : ("feature \(position)", NSNull())
            rows.append(["name": name.name, "index": name.index, "class": label, "value": weight])
        }
    }
    switch final.type {
    case .glmRegressor?:
        add(NSNull(), final.glmRegressor.offset.first ?? 0, final.glmRegressor.weights.first?.value ?? [])
    case .glmClassifier?:
        let glm = final.glmClassifier
        let labels: [Any] = classes ?? glm.stringClassLabels.vector
        if glm.weights.count == 1, labels.count == 2 {
            add(labels[1], glm.offset.first ?? 0, glm.weights[0].value)
        } else {
            for (index, weights) in glm.weights.enumerated() where index < labels.count {
                add(labels[index], index < glm.offset.count ? glm.offset[index] : 0, weights.value)
            }
        }
    default:
        break
    }
    return rows
}
