import Foundation
import OpenCoreML
@testable import OpenCreateML
import Testing
import _OpenCoreMLTestSupport

/// `MLLinearRegressor` and `MLLogisticRegressionClassifier`'s table initializer on
/// `Tests/Fixtures/linear/table.csv` (a numeric column with missing values, an Int column, a String
/// column with missing values; made by `Scripts/make_linear_fixtures.py`), against scikit-learn's
/// `Ridge` and `LogisticRegression` (binary and multinomial) on the same encoding (mean-imputed
/// numbers, one-hot strings), with and without feature rescaling; the written models' predictions
/// against `predictions(from:)`; and bad parameters.
@Suite("Linear models on tables")
struct LinearTableTests {
    struct Fixture: Decodable {
        struct Case: Decodable {
            let target: String
            let featureRescaling: Bool
            let predictions: [Double]?
            let classes: [String]?
            let probabilities: [[Double]]?
        }
        let rowCount: Int
        let l2Penalty: Double
        let features: [String]
        let cases: [Case]
    }

    static let folder = Fixtures.directory.deletingLastPathComponent().appendingPathComponent("linear")
    static let fixture: Fixture = {
        try! JSONDecoder().decode(Fixture.self, from: Data(contentsOf: folder.appendingPathComponent("table.json")))
    }()
    static let table: MLDataTable = try! MLDataTable(contentsOf: folder.appendingPathComponent("table.csv"))
    static let features = ["size", "rooms", "city"]

    static func reference(_ target: String, rescaling: Bool) -> Fixture.Case {
        fixture.cases.first { $0.target == target && $0.featureRescaling == rescaling }!
    }

    @Test func tableHasMissingNumbersAndStrings() {
        let table = Self.table
        #expect(table.rows.count == Self.fixture.rowCount)
        #expect((0..<table.rows.count).contains { table.rows[$0]["size"]?.isValid == false })
        #expect((0..<table.rows.count).contains { table.rows[$0]["city"]?.isValid == false })
    }

    /// Ridge on the encoded table: every prediction within 1e-6 of scikit-learn's (prices are
    /// ~100–500, so this is float64 convergence, not luck).
    @Test(arguments: [false, true])
    func regressorMatchesRidge(_ rescaling: Bool) throws {
        let reference = Self.reference("price", rescaling: rescaling)
        let parameters = MLLinearRegressor.ModelParameters(validation: .none, maxIterations: 1000, l2Penalty: Self.fixture.l2Penalty,
                                                           convergenceThreshold: 1e-9, featureRescaling: rescaling)
        let regressor = try MLLinearRegressor(trainingData: Self.table, targetColumn: "price", featureColumns: Self.features,
                                              parameters: parameters)
        let predictions = try regressor.predictions(from: Self.table)
        let expected = try #require(reference.predictions)
        let worst = (0..<expected.count).map { abs((predictions[$0].doubleValue ?? .nan) - expected[$0]) }.max()!
        #expect(worst <= 1e-6, "largest difference from scikit-learn: \(worst)")
        #expect(regressor.featureColumns == Self.features)
        #expect(regressor.validationMetrics.exampleCount == 0)
        #expect(regressor.iterations.count >= 1 && regressor.iterations.allSatisfy { $0.metric == .rmse && $0.validationMetric == nil })
        // The training RMSE is the fixture's by hand.
        let targets = (0..<Self.table.rows.count).map { Self.table.rows[$0]["price"]!.doubleValue! }
        let rmse = (zip(expected, targets).map { ($0 - $1) * ($0 - $1) }.reduce(0, +) / Double(targets.count)).squareRoot()
        #expect(abs(regressor.trainingMetrics.rootMeanSquaredError - rmse) <= 1e-6)
        try expectWrittenModelAgrees(regressor.predictions(from: Self.table), written: { try regressor.write(to: $0) },
                                     name: "linear-price\(rescaling ? "-rescaled" : "")", target: "price")
    }

    /// Logistic regression on the encoded table, two classes (sold) and three (kind): every class
    /// probability of the written model within 1e-4 of scikit-learn's (the solver's logits are
    /// float32), and the same labels as `predictions(from:)`.
    @Test(arguments: [("sold", false), ("sold", true), ("kind", false), ("kind", true)])
    func classifierMatchesLogisticRegression(_ target: String, _ rescaling: Bool) throws {
        let reference = Self.reference(target, rescaling: rescaling)
        let parameters = MLLogisticRegressionClassifier.ModelParameters(validation: .none, maxIterations: 1000, l2Penalty: Self.fixture.l2Penalty,
                                                                        convergenceThreshold: 1e-7, featureRescaling: rescaling)
        let classifier = try MLLogisticRegressionClassifier(trainingData: Self.table, targetColumn: target, featureColumns: Self.features,
                                                            parameters: parameters)
        let classes = try #require(reference.classes), expected = try #require(reference.probabilities)
        #expect(classifier.classLabels == classes)
        let model = try classifier.model
        let outputs = try model.predictions(fromBatch: MLArrayBatchProvider(array: Self.providers(Self.table)))
        var worst = 0.0
        for row in 0..<outputs.count {
            let probabilities = try #require(outputs.features(at: row).featureValue(for: target + "Probability")?.dictionaryValue)
            for (index, label) in classes.enumerated() {
                worst = max(worst, abs((probabilities[label]?.doubleValue ?? .nan) - expected[row][index]))
            }
        }
        #expect(worst <= 1e-4, "largest probability difference from scikit-learn: \(worst)")
        let predicted = try classifier.predictions(from: Self.table)
        let byReference = expected.map { p in classes[p.indices.max { p[$0] < p[$1] }!] }
        let disagreements = (0..<predicted.count).filter { predicted[$0].stringValue != byReference[$0] }.count
        #expect(disagreements <= 1, "\(disagreements) labels differ from scikit-learn's")
        #expect(abs(classifier.trainingMetrics.accuracy - Double(predicted.count - (0..<predicted.count).filter {
            predicted[$0].stringValue != Self.table.rows[$0][target]?.stringValue
        }.count) / Double(predicted.count)) < 1e-12)
        try expectWrittenModelAgrees(predicted, written: { try classifier.write(to: $0) },
                                     name: "logistic-\(target)\(rescaling ? "-rescaled" : "")", target: target)
    }

    /// An Int target: Int labels in the predictions and the written model; the automatic split
    /// sets 10 % of the 150 rows aside; an L1 and an L2 penalty together (elastic net) train.
    @Test func intTargetElasticNetAndAutomaticValidation() throws {
        var table = Self.table
        table.addColumn(MLDataColumn((0..<table.rows.count).map { (table.rows[$0]["rooms"]?.intValue ?? 0) >= 3 ? 1 : 0 }), named: "big")
        let classifier = try MLLogisticRegressionClassifier(trainingData: table, targetColumn: "big", featureColumns: ["size", "city"],
                                                            parameters: .init(maxIterations: 50, l1Penalty: 0.001, l2Penalty: 0.01))
        #expect(classifier.classLabels == ["0", "1"])
        #expect(classifier.validationMetrics.exampleCount == 15 && classifier.trainingMetrics.exampleCount == 135)
        #expect(classifier.iterations.allSatisfy { $0.validationMetric != nil && $0.metric == .accuracy })
        let predicted = try classifier.predictions(from: table)
        #expect(predicted.type == .int)
        try expectWrittenModelAgrees(predicted, written: { try classifier.write(to: $0) }, name: "logistic-int", target: "big",
                                     features: ["size", "city"], table: table)
        let regressor = try MLLinearRegressor(trainingData: table, targetColumn: "price",
                                              parameters: .init(validation: .split(strategy: .fixed(ratio: 0.2, seed: 7)), l1Penalty: 0.5))
        #expect(regressor.validationMetrics.exampleCount == 30)
        #expect(regressor.featureColumns == ["size", "rooms", "city", "sold", "kind", "big"])
        #expect(regressor.validationMetrics.rootMeanSquaredError < 30)
        try expectWrittenModelAgrees(regressor.predictions(from: table), written: { try regressor.write(to: $0) }, name: "linear-all",
                                     target: "price", features: regressor.featureColumns, table: table)
    }

    static func without(_ column: String) -> MLDataTable {
        var table = Self.table
        table.removeColumn(named: column)
        return table
    }

    /// A validation table measures every iteration; a progress callback returning false stops
    /// training with the model so far, which the written model still matches.
    @Test func validationTableAndStoppingFromProgress() throws {
        let (training, validation) = (Self.table.gathering(Array(0..<100)), Self.table.gathering(Array(100..<150)))
        var seen: [TabularTrainingIteration] = []
        let regressor = try MLLinearRegressor(trainingData: training, targetColumn: "price", featureColumns: Self.features,
                                              parameters: .init(validation: .table(validation), maxIterations: 50, convergenceThreshold: 0)) {
            seen.append($0)
            return $0.iteration < 2
        }
        #expect(seen.map(\.iteration) == [1, 2] && regressor.iterations == seen)
        #expect(regressor.validationMetrics.exampleCount == 50 && regressor.trainingMetrics.exampleCount == 100)
        let last = try #require(seen.last?.validationMetric)
        #expect(abs(last - regressor.validationMetrics.rootMeanSquaredError) <= 1e-9 * last)
        try expectWrittenModelAgrees(regressor.predictions(from: validation), written: { try regressor.write(to: $0) },
                                     name: "linear-stopped", target: "price", table: validation)
        var steps = 0
        let classifier = try MLLogisticRegressionClassifier(trainingData: training, targetColumn: "kind", featureColumns: Self.features,
                                                            parameters: .init(validation: .table(validation), maxIterations: 50)) { _ in
            steps += 1
            return steps < 3
        }
        #expect(classifier.iterations.count == 3 && classifier.validationMetrics.exampleCount == 50)
        let accuracy = try #require(classifier.iterations.last?.validationMetric)
        #expect(abs(accuracy - classifier.validationMetrics.accuracy) <= 1e-12)
    }

    @Test func evaluationReportsFailuresInTheMetrics() throws {
        let regressor = try MLLinearRegressor(trainingData: Self.table, targetColumn: "price", featureColumns: Self.features)
        let good = regressor.evaluation(on: Self.table)
        #expect(good.isValid && good.exampleCount == 150)
        let bad = regressor.evaluation(on: Self.without("city"))
        #expect(!bad.isValid && "\(bad.error!)".contains("city"))
        let classifier = try MLLogisticRegressionClassifier(trainingData: Self.table, targetColumn: "kind", featureColumns: Self.features)
        #expect(classifier.evaluation(on: Self.table).isValid)
        let missing = classifier.evaluation(on: Self.without("rooms"))
        #expect(!missing.isValid && "\(missing.error!)".contains("rooms"))
        #expect(throws: CreateMLError.self) { try classifier.predictions(from: Self.without("size")) }
    }

    @Test func badParametersNameTheParameter() {
        func location(_ body: () throws -> Void) -> String? {
            do {
                try body()
                return nil
            } catch let error as CreateMLError {
                return "\(error)"
            } catch {
                return "unexpected \(error)"
            }
        }
        let table = Self.table
        typealias Linear = MLLinearRegressor.ModelParameters
        let linearCases: [(Linear, String)] = [
            (Linear(maxIterations: 0), "maxIterations"), (Linear(l1Penalty: -1), "l1Penalty"), (Linear(l2Penalty: .nan), "l2Penalty"),
            (Linear(stepSize: 0), "stepSize"), (Linear(convergenceThreshold: -0.1), "convergenceThreshold"),
            (Linear(validation: .split(strategy: .fixed(ratio: 1.5, seed: 1))), "validation"),
        ]
        for (parameters, name) in linearCases {
            let message = location { _ = try MLLinearRegressor(trainingData: table, targetColumn: "price", parameters: parameters) }
            #expect(message?.contains("MLLinearRegressor.ModelParameters.\(name)") == true, "\(name): \(message ?? "no error")")
        }
        typealias Logistic = MLLogisticRegressionClassifier.ModelParameters
        let logisticCases: [(Logistic, String)] = [
            (Logistic(maxIterations: -3), "maxIterations"), (Logistic(l1Penalty: .infinity), "l1Penalty"), (Logistic(l2Penalty: -2), "l2Penalty"),
            (Logistic(stepSize: .nan), "stepSize"), (Logistic(convergenceThreshold: .nan), "convergenceThreshold"),
        ]
        for (parameters, name) in logisticCases {
            let message = location { _ = try MLLogisticRegressionClassifier(trainingData: table, targetColumn: "sold", parameters: parameters) }
            #expect(message?.contains("MLLogisticRegressionClassifier.ModelParameters.\(name)") == true, "\(name): \(message ?? "no error")")
        }
        // Columns: an unknown target, a String target for the regressor, a Double target for the classifier.
        #expect(location { _ = try MLLinearRegressor(trainingData: table, targetColumn: "nope") }?.contains("nope") == true)
        #expect(location { _ = try MLLinearRegressor(trainingData: table, targetColumn: "sold") }?.contains("sold") == true)
        #expect(location { _ = try MLLogisticRegressionClassifier(trainingData: table, targetColumn: "price") }?.contains("price") == true)
    }

    /// The rows of `table` as model inputs, missing values left out.
    static func providers(_ table: MLDataTable, features: [String] = features) -> [MLFeatureProvider] {
        (0..<table.rows.count).map { index in
            let row = table.rows[index]
            var values: [String: MLFeatureValue] = [:]
            for name in features {
                switch row[name] {
                case .int(let value)?: values[name] = MLFeatureValue(int64: Int64(value))
                case .double(let value)?: values[name] = MLFeatureValue(double: value)
                case .string(let value)?: values[name] = MLFeatureValue(string: value)
                default: continue
                }
            }
            return MLDictionaryFeatureProvider(featureValues: values)
        }
    }
}

/// Writes a model with `written`, loads it with `MLModel(contentsOf:)` and expects its `target`
/// output on every row of `table` to equal `predictions` exactly. With `OPENCOREML_LINEAR_MODELS`
/// set to a folder, also copies the model there as `name.mlmodel` with `name.json` (the target,
/// the features, the rows without missing values, the predictions) for
/// `Scripts/check-linear-with-coremltools.py`.
func expectWrittenModelAgrees(_ predictions: MLUntypedColumn, written: (URL) throws -> Void, name: String, target: String,
                              features: [String] = LinearTableTests.features, table: MLDataTable = LinearTableTests.table) throws {
    try withTemporaryDirectory { folder in
        let url = folder.appendingPathComponent("Model.mlmodel")
        try written(url)
        let model = try MLModel(contentsOf: url)
        let outputs = try model.predictions(fromBatch: MLArrayBatchProvider(array: LinearTableTests.providers(table, features: features)))
        #expect(outputs.count == predictions.count)
        let differing = try (0..<outputs.count).filter { row in
            let value = try #require(outputs.features(at: row).featureValue(for: target))
            switch predictions[row] {
            case .string(let label): return value.stringValue != label
            case .int(let label): return value.int64Value != Int64(label)
            case .double(let number): return value.doubleValue != number
            default: return true
            }
        }
        #expect(differing.isEmpty, "\(name): rows \(differing.prefix(5)) of \(outputs.count) differ")
        guard let destination = ProcessInfo.processInfo.environment["OPENCOREML_LINEAR_MODELS"] else { return }
        let out = URL(fileURLWithPath: destination)
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try? FileManager.default.removeItem(at: out.appendingPathComponent(name + ".mlmodel"))
        try FileManager.default.copyItem(at: url, to: out.appendingPathComponent(name + ".mlmodel"))
        func plain(_ value: MLDataValue) -> Any? {
            switch value {
            case .int(let number): return number
            case .double(let number): return "\(number)"  // the shortest text that reads back exactly
            case .string(let text): return text
            default: return nil
            }
        }
        let rows: [[String: Any]] = (0..<table.rows.count).map { index in
            var row: [String: Any] = [:]
            for feature in features { if let value = table.rows[index][feature].flatMap(plain) { row[feature] = value } }
            return row
        }
        let record: [String: Any] = ["target": target, "features": features, "rows": rows,
                                     "expected": (0..<predictions.count).map { plain(predictions[$0]) ?? NSNull() }]
        try JSONSerialization.data(withJSONObject: record).write(to: out.appendingPathComponent(name + ".json"))
    }
}
