import Foundation
import OpenCoreML
@testable import OpenCreateML
import Testing
import _OpenCoreMLTestSupport

@Suite("Tree trainers")
struct TreeTrainerTests {
    static let training = try! TabularTestData.table(rows: 800, seed: 1)
    static let testing = try! TabularTestData.table(rows: 400, seed: 2)
    static let features = ["x1", "x2", "color"]

    // References on the same rows (the generator and formulas redone in Python, all 800 rows for
    // training): XGBoost 3.2 hist with the same depth, rounds, η and min_child_weight 0.905
    // accuracy / 0.211 RMSE; scikit-learn's random forest (20 trees, depth 6/8, 80 % of the rows,
    // all features) 0.89 / 0.374; its decision tree (depth 6/8) 0.865 / 0.516. Always answering the
    // majority class gets about 50 %, a model ignoring color about 83 %; predicting y's mean an
    // RMSE of 2.38. The random forests here sample all columns: with three features, Create ML's
    // per-tree `columnSubsample` of 0.8 leaves one feature out of every tree.

    @Test func boostedTreesClassify() throws {
        let classifier = try MLBoostedTreeClassifier(trainingData: Self.training, targetColumn: "label", featureColumns: Self.features,
                                                     parameters: .init(maxDepth: 4, maxIterations: 30))
        #expect(classifier.evaluation(on: Self.testing).accuracy > 0.88)
        #expect(classifier.iterations.count == 30 && classifier.iterations.allSatisfy { $0.metric == .accuracy })
        // 800 rows: 5 % validation.
        #expect(classifier.validationMetrics.exampleCount == 40)
        try expectIdenticalPredictions(classifier.predictions(from: Self.testing), written: { try classifier.write(to: $0) },
                                       name: "boosted_classifier", target: "label")
    }

    @Test func randomForestClassifies() throws {
        let classifier = try MLRandomForestClassifier(trainingData: Self.training, targetColumn: "label", featureColumns: Self.features,
                                                      parameters: .init(maxIterations: 20, columnSubsample: 1))
        #expect(classifier.evaluation(on: Self.testing).accuracy > 0.86)
        try expectIdenticalPredictions(classifier.predictions(from: Self.testing), written: { try classifier.write(to: $0) },
                                       name: "forest_classifier", target: "label")
    }

    @Test func decisionTreeClassifies() throws {
        let classifier = try MLDecisionTreeClassifier(trainingData: Self.training, targetColumn: "label", featureColumns: Self.features)
        #expect(classifier.evaluation(on: Self.testing).accuracy > 0.84)
        try expectIdenticalPredictions(classifier.predictions(from: Self.testing), written: { try classifier.write(to: $0) },
                                       name: "tree_classifier", target: "label")
    }

    @Test func intLabelsOfThreeClasses() throws {
        // `band` is a step function of x1: trees find it almost exactly.
        let boosted = try MLBoostedTreeClassifier(trainingData: Self.training, targetColumn: "band", featureColumns: ["x1", "color"])
        let forest = try MLRandomForestClassifier(trainingData: Self.training, targetColumn: "band", featureColumns: ["x1", "color"])
        let tree = try MLDecisionTreeClassifier(trainingData: Self.training, targetColumn: "band", featureColumns: ["x1", "color"])
        #expect(boosted.evaluation(on: Self.testing).accuracy > 0.97)
        #expect(forest.evaluation(on: Self.testing).accuracy > 0.95)
        #expect(tree.evaluation(on: Self.testing).accuracy > 0.97)
        let predictions = try boosted.predictions(from: Self.testing)
        #expect(predictions.type == .int)
        try expectIdenticalPredictions(predictions, written: { try boosted.write(to: $0) }, name: "boosted_int_classifier", target: "band", features: ["x1", "color"])
        try expectIdenticalPredictions(forest.predictions(from: Self.testing), written: { try forest.write(to: $0) }, name: "forest_int_classifier", target: "band",
                                       features: ["x1", "color"])
    }

    @Test func boostedTreesRegress() throws {
        let regressor = try MLBoostedTreeRegressor(trainingData: Self.training, targetColumn: "y", featureColumns: Self.features,
                                                   parameters: .init(maxDepth: 4, maxIterations: 60))
        #expect(regressor.evaluation(on: Self.testing).rootMeanSquaredError < 0.3)
        #expect(regressor.iterations.allSatisfy { $0.metric == .rmse })
        try expectIdenticalPredictions(regressor.predictions(from: Self.testing), written: { try regressor.write(to: $0) }, name: "boosted_regressor", target: "y")
    }

    @Test func randomForestRegresses() throws {
        let regressor = try MLRandomForestRegressor(trainingData: Self.training, targetColumn: "y", featureColumns: Self.features,
                                                    parameters: .init(maxDepth: 8, maxIterations: 20, columnSubsample: 1))
        #expect(regressor.evaluation(on: Self.testing).rootMeanSquaredError < 0.5)
        try expectIdenticalPredictions(regressor.predictions(from: Self.testing), written: { try regressor.write(to: $0) }, name: "forest_regressor", target: "y")
    }

    @Test func decisionTreeRegresses() throws {
        let regressor = try MLDecisionTreeRegressor(trainingData: Self.training, targetColumn: "y", featureColumns: Self.features,
                                                    parameters: .init(maxDepth: 8))
        #expect(regressor.evaluation(on: Self.testing).rootMeanSquaredError < 0.65)
        try expectIdenticalPredictions(regressor.predictions(from: Self.testing), written: { try regressor.write(to: $0) }, name: "tree_regressor", target: "y")
    }

    @Test func largeTablesPredictInChunksAsSmallOnes() throws {
        // 40,000 rows: more than one chunk of 32,768 rows is encoded and evaluated.
        let classifier = try MLBoostedTreeClassifier(trainingData: Self.training, targetColumn: "label", featureColumns: Self.features)
        var large = Self.testing
        for _ in 1..<100 { large.append(contentsOf: Self.testing) }
        let small = try classifier.predictions(from: Self.testing)
        let predictions = try classifier.predictions(from: large)
        #expect(predictions.count == 40_000)
        #expect((0..<40_000).allSatisfy { predictions[$0] == small[$0 % 400] })
        #expect(classifier.evaluation(on: large).accuracy == classifier.evaluation(on: Self.testing).accuracy)
    }

    @Test func numericTablesWriteABareTreeEnsemble() throws {
        let regressor = try MLBoostedTreeRegressor(trainingData: Self.training, targetColumn: "y", featureColumns: ["x1", "x2"])
        let description = try regressor.model.modelDescription
        #expect(Set(description.inputDescriptionsByName.keys) == ["x1", "x2"])
        #expect(Set(description.outputDescriptionsByName.keys) == ["y"])
        try expectIdenticalPredictions(regressor.predictions(from: Self.testing), written: { try regressor.write(to: $0) }, name: "boosted_numeric_regressor", target: "y",
                                       features: ["x1", "x2"])
    }

    @Test func progressCanStopTraining() throws {
        var seen: [Int] = []
        let classifier = try MLBoostedTreeClassifier(trainingData: Self.training, targetColumn: "label", featureColumns: Self.features,
                                                     parameters: .init(validation: .none, maxIterations: 10)) { iteration in
            seen.append(iteration.iteration)
            #expect(iteration.validationMetric == nil)
            return iteration.iteration < 3
        }
        #expect(seen == [1, 2, 3] && classifier.iterations.count == 3, "\(seen)")
        #expect(classifier.validationMetrics.exampleCount == 0)
    }

    @Test func metadataAndOutputNamesAreCreateMLs() throws {
        let classifier = try MLDecisionTreeClassifier(trainingData: Self.training, targetColumn: "label", featureColumns: Self.features)
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("Tree.mlmodel")
            try classifier.write(to: url, metadata: MLModelMetadata(author: "Ada", shortDescription: "Labels", version: "3"))
            let description = try MLModel(contentsOf: url).modelDescription
            #expect(description.metadata[.author] as? String == "Ada")
            #expect(description.metadata[.versionString] as? String == "3")
            #expect(description.predictedFeatureName == "label" && description.predictedProbabilitiesName == "labelProbability")
            #expect(Set(description.inputDescriptionsByName.keys) == ["x1", "x2", "color"])
        }
    }

    @Test func evaluationReportsFailuresInTheMetrics() throws {
        let classifier = try MLDecisionTreeClassifier(trainingData: Self.training, targetColumn: "label", featureColumns: Self.features)
        let lacking = Self.testing[["x1", "label"]]
        let metrics = classifier.evaluation(on: lacking)
        #expect(!metrics.isValid && "\(metrics.error!)".contains("x2"))
        let regressor = try MLDecisionTreeRegressor(trainingData: Self.training, targetColumn: "y", featureColumns: Self.features)
        let regression = regressor.evaluation(on: lacking)
        #expect(!regression.isValid && "\(regression.error!)".contains("x2"))
        #expect(throws: CreateMLError.self) { try regressor.predictions(from: lacking) }
    }

    @Test func badParametersNameTheParameter() {
        func failure(_ body: () throws -> Any) -> String { thrownMessage(body) ?? "" }
        let table = Self.training
        #expect(failure { try MLBoostedTreeClassifier(trainingData: table, targetColumn: "label", parameters: .init(maxDepth: 0)) }
            .contains("maxDepth"))
        #expect(failure { try MLBoostedTreeRegressor(trainingData: table, targetColumn: "y", parameters: .init(stepSize: -1)) }
            .contains("stepSize"))
        #expect(failure { try MLBoostedTreeClassifier(trainingData: table, targetColumn: "label", parameters: .init(rowSubsample: 0)) }
            .contains("rowSubsample"))
        #expect(failure { try MLRandomForestClassifier(trainingData: table, targetColumn: "label", parameters: .init(columnSubsample: 1.5)) }
            .contains("columnSubsample"))
        #expect(failure { try MLRandomForestRegressor(trainingData: table, targetColumn: "y", parameters: .init(maxIterations: 0)) }
            .contains("maxIterations"))
        #expect(failure { try MLDecisionTreeClassifier(trainingData: table, targetColumn: "label", parameters: .init(minChildWeight: -1)) }
            .contains("minChildWeight"))
        #expect(failure { try MLDecisionTreeRegressor(trainingData: table, targetColumn: "y", parameters: .init(minLossReduction: .nan)) }
            .contains("minLossReduction"))
        #expect(failure { try MLBoostedTreeClassifier(trainingData: table, targetColumn: "label", parameters: .init(earlyStoppingRounds: 0)) }
            .contains("earlyStoppingRounds"))
    }

    /// Boosting's final training and validation metrics come from the scores the trainer kept;
    /// the model evaluated on the same rows must give exactly the same numbers.
    @Test func boostedMetricsFromTheTrainersScoresEqualTheModelsOwn() throws {
        let validation = try TabularTestData.table(rows: 300, seed: 3)
        for rowSubsample in [1.0, 0.7] {
            let parameters = BoostedTreeModelParameters(validation: .table(validation), maxDepth: 4, maxIterations: 25,
                                                        rowSubsample: rowSubsample, columnSubsample: rowSubsample)
            for target in ["label", "band"] {
                let classifier = try MLBoostedTreeClassifier(trainingData: Self.training, targetColumn: target, featureColumns: ["x1", "x2", "color"],
                                                             parameters: parameters)
                for (kept, table) in [(classifier.trainingMetrics, Self.training), (classifier.validationMetrics, validation)] {
                    let evaluated = classifier.evaluation(on: table)
                    #expect(kept.exampleCount == table.size.rows && kept.correctCount == evaluated.correctCount, "\(target)")
                    #expect(kept.meanCrossEntropy != nil && kept.meanCrossEntropy == evaluated.meanCrossEntropy, "\(target)")
                }
            }
            let regressor = try MLBoostedTreeRegressor(trainingData: Self.training, targetColumn: "y", featureColumns: Self.features,
                                                       parameters: parameters)
            for (kept, table) in [(regressor.trainingMetrics, Self.training), (regressor.validationMetrics, validation)] {
                let evaluated = regressor.evaluation(on: table)
                #expect(kept.rootMeanSquaredError == evaluated.rootMeanSquaredError && kept.maximumError == evaluated.maximumError)
            }
        }
    }

    @Test func earlyStoppingEndsBoostingOnValidationLoss() throws {
        let regressor = try MLBoostedTreeRegressor(trainingData: Self.training, targetColumn: "y", featureColumns: Self.features,
                                                   parameters: .init(maxIterations: 300, earlyStoppingRounds: 3))
        // With 40 noisy validation rows the validation loss stops improving long before 300 rounds.
        #expect(regressor.iterations.count < 300)
        #expect(regressor.iterations.allSatisfy { $0.validationLoss != nil && $0.validationMetric != nil })
        #expect(regressor.evaluation(on: Self.testing).rootMeanSquaredError < 0.35)
    }

    @Test func selectionPicksALinearModelForLinearData() throws {
        // y = 2·x1 − 3·x2 + 1 exactly, and a label that is its sign: a linear model fits both
        // (almost) exactly, while trees approximate the plane by steps.
        var generator = SeededGenerator(seed: 11)
        let x1 = (0..<300).map { _ in generator.unit() * 2 - 1 }
        let x2 = (0..<300).map { _ in generator.unit() * 2 - 1 }
        let y = zip(x1, x2).map { 2 * $0 - 3 * $1 + 1 }
        let table = try MLDataTable(dictionary: ["x1": x1, "x2": x2, "y": y, "sign": y.map { $0 > 0 ? "+" : "-" }])
        let regressor = try MLRegressor(trainingData: table, targetColumn: "y", featureColumns: ["x1", "x2"])
        guard case .linear = regressor else { Issue.record("chose \(regressor)"); return }
        #expect(regressor.validationMetrics.rootMeanSquaredError < 0.05)
        let classifier = try MLClassifier(trainingData: table, targetColumn: "sign", featureColumns: ["x1", "x2"])
        #expect(classifier.validationMetrics.accuracy >= 0.9)
    }

    @Test func selectionKeepsTheBestCandidate() throws {
        let classifier = try MLClassifier(trainingData: Self.training, targetColumn: "label", featureColumns: Self.features)
        #expect(classifier.evaluation(on: Self.testing).accuracy > 0.85)
        #expect(classifier.validationMetrics.exampleCount == 40)
        let regressor = try MLRegressor(trainingData: Self.training, targetColumn: "y", featureColumns: Self.features)
        #expect(regressor.evaluation(on: Self.testing).rootMeanSquaredError < 0.8)
        try expectIdenticalPredictions(regressor.predictions(from: Self.testing), written: { try regressor.write(to: $0) }, name: "selected_regressor", target: "y")
    }
}

/// Writes a model with `written`, loads it with `MLModel(contentsOf:)`, predicts every row of
/// `TreeTrainerTests.testing` (leaving missing values out) and expects exactly `predictions`.
/// With `OPENCOREML_TABULAR_MODELS` set to a folder, also writes `name.mlmodel` there with
/// `name.json` (the target, the feature names, the rows and the predictions) for
/// `Scripts/check-tabular-with-coremltools.py`.
func expectIdenticalPredictions(_ predictions: MLUntypedColumn, written: (URL) throws -> Void, name: String, target: String,
                                features: [String] = TreeTrainerTests.features, rows table: MLDataTable = TreeTrainerTests.testing) throws {
    try withTemporaryDirectory { folder in
        let url = folder.appendingPathComponent("Model.mlmodel")
        try written(url)
        let model = try MLModel(contentsOf: url)
        let providers = LinearTableTests.providers(table, features: features)
        let outputs = try model.predictions(fromBatch: MLArrayBatchProvider(array: providers))
        #expect(outputs.count == predictions.count)
        var mismatches = 0
        for index in 0..<outputs.count {
            let value = try #require(outputs.features(at: index).featureValue(for: target))
            let expected = predictions[index]
            let same: Bool = switch expected {
            case .string(let label): value.stringValue == label
            case .int(let label): value.int64Value == Int64(label)
            case .double(let number): value.doubleValue == number
            default: false
            }
            if !same { mismatches += 1 }
        }
        #expect(mismatches == 0, "\(mismatches) of \(outputs.count) predictions differ")
        if let folder = ProcessInfo.processInfo.environment["OPENCOREML_TABULAR_MODELS"] {
            let destination = URL(fileURLWithPath: folder)
            try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
            let copy = destination.appendingPathComponent(name + ".mlmodel")
            try? FileManager.default.removeItem(at: copy)
            try FileManager.default.copyItem(at: url, to: copy)
            func json(_ value: MLDataValue) -> Any {
                switch value {
                case .int(let number): return number
                case .double(let number): return "\(number)"  // the shortest text that reads back exactly
                case .string(let text): return text
                default: return NSNull()
                }
            }
            let rows = (0..<table.rows.count).map { index in
                Dictionary(uniqueKeysWithValues: features.compactMap { feature -> (String, Any)? in
                    guard let value = table.rows[index][feature], value.isValid else { return nil }
                    return (feature, json(value))
                })
            }
            let record: [String: Any] = ["target": target, "features": features, "rows": rows,
                                         "expected": (0..<predictions.count).map { json(predictions[$0]) }]
            try JSONSerialization.data(withJSONObject: record).write(to: destination.appendingPathComponent(name + ".json"))
        }
    }
}
