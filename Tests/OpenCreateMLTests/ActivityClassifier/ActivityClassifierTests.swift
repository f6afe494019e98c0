import CoreMLSpec
import Foundation
import OpenCoreML
import OpenCreateML
import Testing
import _OpenCoreMLTestSupport

/// `MLActivityClassifier` end to end on made-up motion: it learns, its metrics count rows and
/// windows, the exported model has Turi Create's interface and predicts what the trainer predicts
/// when the LSTM state is carried from window to window, and bad tables get one error naming the
/// row and column.
@Suite("Activity classifier: training, metrics, export", .serialized)
struct ActivityClassifierTests {
    static let window = 10
    static let parameters: MLActivityClassifier.ModelParameters = {
        var parameters = MLActivityClassifier.ModelParameters(validation: .none, batchSize: 8, maximumIterations: 12, predictionWindowSize: window)
        parameters.seed = 3
        return parameters
    }()

    static let trained: Result<MLActivityClassifier, Error> = Result {
        try MLActivityClassifier(trainingData: SyntheticMotion.table(sessions: 24, length: 200, seed: 1),
                                 featureColumns: SyntheticMotion.features, labelColumn: "activity", recordingFileColumn: "session",
                                 parameters: parameters)
    }
    static let test = SyntheticMotion.table(sessions: 8, length: 200, seed: 99, firstSession: 100)

    static func values<T>(_ column: MLDataColumn<T>) -> [T] { (0..<column.count).map { column[$0] } }

    @Test func learnsTheActivitiesAndCountsRowsAndWindows() throws {
        let classifier = try Self.trained.get()
        #expect(classifier.classLabels == SyntheticMotion.activities)
        #expect(classifier.iterations.count == 12)
        #expect(classifier.iterations.last!.loss < classifier.iterations.first!.loss * 0.7,
                "loss \(classifier.iterations.first!.loss) → \(classifier.iterations.last!.loss)")
        #expect(classifier.validationMetrics.exampleCount == 0)
        #expect(classifier.validationNote != nil)
        #expect(classifier.trainingMetrics.exampleCount == 24 * 200)

        let rows = classifier.evaluation(on: Self.test)
        #expect(rows.isValid)
        #expect(rows.exampleCount == 8 * 200)
        #expect(rows.accuracy > 0.85, "row accuracy \(rows.accuracy)")
        let windows = classifier.windowEvaluation(on: Self.test)
        #expect(windows.exampleCount == 8 * 200 / Self.window)
        #expect(windows.accuracy > 0.85, "window accuracy \(windows.accuracy)")

        // Per-row predictions are the windows' labels, replicated.
        let perRow = try classifier.predictions(from: Self.test, perWindowPrediction: false)
        let perWindow = try classifier.windowPredictions(from: Self.test)
        #expect(perRow.count == 8 * 200 && perWindow.count == 8 * 20)
        for prediction in perWindow.prefix(40) {
            for row in prediction.firstRow..<(prediction.firstRow + prediction.rowCount) { #expect(perRow[row] == prediction.label) }
            #expect(abs(prediction.probabilities.values.reduce(0, +) - 1) < 1e-5)
        }
    }

    /// The batchnorm statistics of the written model for each recipe, from the same training (same
    /// seed, so the same weights): Turi's moving averages, the same with their start divided out
    /// (checked against the formula), and recomputed ones, which after a few steps are far from the
    /// (0, 1) start that the moving averages still lean on.
    @Test func batchNormStatisticsRecipes() throws {
        func statistics(_ recipe: MLActivityClassifier.ModelParameters.BatchNormStatistics) throws -> (mean: [Float], variance: [Float], steps: Int) {
            var parameters = MLActivityClassifier.ModelParameters(validation: .none, batchSize: 8, maximumIterations: 2, predictionWindowSize: Self.window)
            parameters.seed = 3
            parameters.batchNormStatistics = recipe
            let table = SyntheticMotion.table(sessions: 24, length: 200, seed: 1)
            let classifier = try MLActivityClassifier(trainingData: table, featureColumns: SyntheticMotion.features, labelColumn: "activity",
                                                      recordingFileColumn: "session", parameters: parameters)
            let layer = try #require(classifier.exportedSpecification().neuralNetworkClassifier.layers.first { $0.name == "bn_layer" })
            // 24 sessions of 200 samples: one chunk of 20 windows each, 3 steps of 8 chunks per pass.
            return (layer.batchnorm.mean.floatValue, layer.batchnorm.variance.floatValue, 2 * 3)
        }
        let moving = try statistics(.movingAverage)
        let corrected = try statistics(.biasCorrected)
        let recomputed = try statistics(.recomputed)
        let decay = Float(pow(0.99, Double(moving.steps)))
        // Two trainings with the same seed agree to float rounding (the engine's threads may sum in
        // another order under load), which the correction's 1 / (1 − 0.99⁶) ≈ 17 amplifies.
        for c in 0..<moving.mean.count {
            #expect(abs(corrected.mean[c] - moving.mean[c] / (1 - decay)) <= 0.02 * max(1, abs(corrected.mean[c])))
            #expect(abs(corrected.variance[c] - max((moving.variance[c] - decay) / (1 - decay), 0)) <= 0.02 * max(1, corrected.variance[c]))
        }
        // After 6 steps the moving variances are still ≥ 0.94 (0.99⁶ of the start 1); the recomputed
        // ones are the batches' own, and the corrected ones come close to them.
        let meanVariance = { (v: [Float]) in v.reduce(0, +) / Float(v.count) }
        #expect(meanVariance(moving.variance) > 0.9)
        #expect(abs(meanVariance(recomputed.variance) - meanVariance(moving.variance)) > 0.05)
        #expect(abs(meanVariance(corrected.variance) - meanVariance(recomputed.variance))
                < abs(meanVariance(moving.variance) - meanVariance(recomputed.variance)))
    }

    @Test func theExportedModelHasTuriCreatesInterfaceAndPredictsWhatTheTrainerPredicts() throws {
        let classifier = try Self.trained.get()
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("GestureClassifier.mlmodel")
            try classifier.write(to: url, metadata: MLModelMetadata(author: "Tests", shortDescription: "Made-up gestures", version: "2"))
            let specification = try CoreML_Specification_Model(contentsOf: url)
            try specification.validate()
            let inputs = specification.description_p.input
            #expect(inputs.map(\.name) == ["features", "hiddenIn", "cellIn"])
            #expect(inputs[0].type.multiArrayType.shape == [1, Int64(Self.window), 3] && inputs[0].type.multiArrayType.dataType == .double)
            #expect(!inputs[0].type.isOptional && inputs[1].type.isOptional && inputs[2].type.isOptional)
            #expect(Set(specification.description_p.output.map(\.name)) == ["activityProbability", "activity", "hiddenOut", "cellOut"])
            #expect(specification.isUpdatable)
            let metadata = specification.description_p.metadata
            #expect(metadata.author == "Tests")
            #expect(metadata.userDefined["prediction_window"] == String(Self.window))
            #expect(metadata.userDefined["features"] == "ax,ay,az")
            #expect(metadata.userDefined["session_id"] == "session" && metadata.userDefined["target"] == "activity")
            let layers = specification.neuralNetworkClassifier.layers.map { layer -> String in
                switch layer.layer {
                case .permute?: return "permute"
                case .convolution?: return "convolution"
                case .activation?: return "relu"
                case .uniDirectionalLstm?: return "lstm"
                case .innerProduct?: return "innerProduct"
                case .batchnorm?: return "batchnorm"
                case .softmax?: return "softmax"
                default: return "other"
                }
            }
            #expect(layers == ["permute", "convolution", "relu", "lstm", "innerProduct", "batchnorm", "relu", "innerProduct", "softmax"])
            // Turi Create 6's output layer has no bias; the hidden dense layer has one.
            let products = specification.neuralNetworkClassifier.layers.filter { if case .innerProduct = $0.layer { true } else { false } }
            #expect(products.map(\.innerProduct.hasBias_p) == [true, false])
            #expect(products.last?.innerProduct.bias.floatValue.isEmpty == true)

            // Stream the first test session through the model, window by window, carrying the
            // state within each chunk of 20 windows and starting from none at each chunk, as the
            // trainer does.
            let model = try MLModel(contentsOf: url)
            let expected = try classifier.windowPredictions(from: Self.test).filter { $0.session == "s100" }
            let ax = Self.test["ax"].doubles!, ay = Self.test["ay"].doubles!, az = Self.test["az"].doubles!
            var state: (MLMultiArray, MLMultiArray)?
            var largest = 0.0
            for prediction in expected {
                if prediction.window % 20 == 0 { state = nil }
                let features = try MLMultiArray(shape: [1, NSNumber(value: Self.window), 3], dataType: .double)
                for sample in 0..<Self.window {
                    let row = prediction.firstRow + sample
                    features[[0, NSNumber(value: sample), 0]] = NSNumber(value: ax[row])
                    features[[0, NSNumber(value: sample), 1]] = NSNumber(value: ay[row])
                    features[[0, NSNumber(value: sample), 2]] = NSNumber(value: az[row])
                }
                var inputs: [String: Any] = ["features": features]
                if let state { inputs["hiddenIn"] = state.0; inputs["cellIn"] = state.1 }
                let output = try model.prediction(from: MLDictionaryFeatureProvider(dictionary: inputs))
                #expect(output.featureValue(for: "activity")?.stringValue == prediction.label)
                let probabilities = output.featureValue(for: "activityProbability")!.dictionaryValue
                for (label, probability) in prediction.probabilities {
                    largest = max(largest, abs(probabilities[label]!.doubleValue - probability))
                }
                state = (output.featureValue(for: "hiddenOut")!.multiArrayValue!, output.featureValue(for: "cellOut")!.multiArrayValue!)
            }
            #expect(expected.count == 20)
            #expect(largest < 1e-4, "largest difference \(largest)")
        }
    }

    @Test func theWrittenModelStreamedGivesTheTrainersPredictions() throws {
        let classifier = try Self.trained.get()
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("Gestures.mlmodel")
            try classifier.write(to: url)
            let model = try MLModel(contentsOf: url)

            // Whole sessions through the model, the state carried, reset every 20 windows, the
            // last window zero-padded: the trainer's windows.
            let fromModel = try MLActivityClassifier.windowPredictions(model: model, from: Self.test, recordingFileColumn: "session")
            let fromTrainer = try classifier.windowPredictions(from: Self.test)
            #expect(fromModel.count == fromTrainer.count)
            var largest = 0.0
            for (a, b) in zip(fromModel, fromTrainer) {
                #expect(a.session == b.session && a.window == b.window && a.firstRow == b.firstRow && a.rowCount == b.rowCount)
                #expect(a.label == b.label)
                for (label, p) in b.probabilities { largest = max(largest, abs(a.probabilities[label]! - p)) }
            }
            #expect(largest < 1e-4, "largest difference \(largest)")
            let metrics = try MLActivityClassifier.evaluation(model: model, on: Self.test, labelColumn: "activity", recordingFileColumn: "session")
            #expect(metrics.perRow.confusionMatrix == classifier.evaluation(on: Self.test).confusionMatrix)
            #expect(metrics.perWindow.confusionMatrix == classifier.windowEvaluation(on: Self.test).confusionMatrix)

            // GestureIt's overlapping windows: an offset of half a window makes two interleaved
            // series; series 0 is the non-overlapping stream.
            let stream = try ActivityPredictionStream(model: model, windowOffset: Self.window / 2, threshold: 0.9)
            #expect(stream.featureNames == SyntheticMotion.features && stream.predictionWindow == Self.window)
            let session = Self.test[Self.test["session"] == "s100"]
            let columns = SyntheticMotion.features.map { Self.values(session[$0].doubles!) }
            var predictions: [ActivityPredictionStream.Prediction] = []
            for row in 0..<session.size.rows { predictions += try stream.append(columns.map { $0[row] }) }
            #expect(predictions.count == (200 - Self.window) / (Self.window / 2) + 1)
            #expect(predictions.map(\.series) == predictions.indices.map { $0 % 2 })
            #expect(predictions.map(\.endSample) == predictions.indices.map { Self.window + $0 * Self.window / 2 })
            let seriesZero = predictions.filter { $0.series == 0 }
            let expected = fromTrainer.filter { $0.session == "s100" }
            #expect(seriesZero.map(\.label) == expected.map(\.label))
            #expect(predictions.allSatisfy { $0.isConfident == ($0.probability > 0.9) })
            #expect(try stream.finish().isEmpty)  // 200 samples fill every window
            #expect(throws: CreateMLError.self) { try stream.append([1, 2]) }
            #expect(throws: CreateMLError.self) { try stream.append([1, .nan, 2]) }
            #expect(throws: CreateMLError.self) { try ActivityPredictionStream(model: model, windowOffset: 3) }
        }
    }

    /// Beyond Turi Create and Create ML: the written model trains further on the device, one
    /// window per example (no state given: zeros), with `MLUpdateTask`'s machinery.
    @Test func theWrittenModelPersonalizesWithUpdateTask() throws {
        let classifier = try Self.trained.get()
        // A user whose "wave" is the "shake" motion: relabel windows of shaking as waving.
        let windows = try classifier.windowPredictions(from: Self.test).filter { $0.rowCount == Self.window }
        let columns = SyntheticMotion.features.map { Self.values(Self.test[$0].doubles!) }
        let truth = Self.values(Self.test["activity"].strings!)
        var examples: [MLFeatureProvider] = []
        for window in windows where (window.firstRow..<(window.firstRow + Self.window)).allSatisfy({ truth[$0] == "shake" }) {
            let features = try MLMultiArray(shape: [1, NSNumber(value: Self.window), 3], dataType: .double)
            for sample in 0..<Self.window {
                for feature in 0..<3 { features[[0, NSNumber(value: sample), NSNumber(value: feature)]] = NSNumber(value: columns[feature][window.firstRow + sample]) }
            }
            examples.append(try MLDictionaryFeatureProvider(dictionary: ["features": features, "activity": "wave"]))
        }
        try #require(examples.count >= 10)
        func waveShare(_ model: MLModel) throws -> Double {
            var waves = 0
            for example in examples {
                let output = try model.prediction(from: MLDictionaryFeatureProvider(featureValues: ["features": example.featureValue(for: "features")!]))
                if output.featureValue(for: "activity")?.stringValue == "wave" { waves += 1 }
            }
            return Double(waves) / Double(examples.count)
        }
        let before = try waveShare(classifier.model)
        let result = try classifier.model.updated(with: MLArrayBatchProvider(array: examples), parameters: [.epochs: 15])
        #expect(result.epochs.count == 15)
        #expect(result.epochs.last!.loss! < result.epochs.first!.loss!, "\(result.epochs.map { $0.loss! })")
        let after = try waveShare(result.model)
        #expect(before < 0.3 && after > 0.9, "wave share \(before) → \(after)")
    }

    @Test func validationSessionsAreSetAsideWholeAndMeasuredEveryIteration() throws {
        var parameters = Self.parameters
        parameters.validation = .split(strategy: .fixed(ratio: 0.25, seed: 5))
        parameters.maximumIterations = 2
        let classifier = try MLActivityClassifier(trainingData: SyntheticMotion.table(sessions: 8, length: 60, seed: 4),
                                                  featureColumns: SyntheticMotion.features, labelColumn: "activity",
                                                  recordingFileColumn: "session", parameters: parameters)
        #expect(classifier.sessionCounts.training == 6 && classifier.sessionCounts.validation == 2)
        #expect(classifier.trainingMetrics.exampleCount == 6 * 60)
        #expect(classifier.validationMetrics.exampleCount == 2 * 60)
        #expect(classifier.iterations.allSatisfy { $0.validationAccuracy != nil })
        #expect(classifier.validationNote == nil)

        // Turi Create 6's automatic rule: fewer than 50 sessions, no validation, and a note saying so.
        parameters.validation = .split(strategy: .automatic)
        let automatic = try MLActivityClassifier(trainingData: SyntheticMotion.table(sessions: 3, length: 60, seed: 4),
                                                 labelColumn: "activity", recordingFileColumn: "session", parameters: parameters)
        #expect(automatic.sessionCounts.validation == 0)
        #expect(automatic.validationNote?.contains("50") == true)
        // Without featureColumns every other column is a feature (here also the time column).
        #expect(Set(automatic.featureColumns) == ["ax", "ay", "az", "t"])
    }

    @Test func badTablesGetOneErrorNamingTheRowAndColumn() throws {
        var parameters = Self.parameters
        parameters.maximumIterations = 1
        func train(_ table: MLDataTable, features: [String] = SyntheticMotion.features) -> CreateMLError? {
            do {
                _ = try MLActivityClassifier(trainingData: table, featureColumns: features, labelColumn: "activity",
                                             recordingFileColumn: "session", parameters: parameters)
                return nil
            } catch {
                return error as? CreateMLError
            }
        }
        let good = SyntheticMotion.table(sessions: 2, length: 30, seed: 8)

        let missing = train(good, features: ["ax", "gyro"])
        #expect(missing?.message.contains("no column 'gyro'") == true)

        var withNaN = good
        var ay = Self.values(good["ay"].doubles!)
        ay[17] = .nan
        withNaN.addColumn(MLDataColumn(ay), named: "ay")
        let nan = train(withNaN)
        #expect(nan?.row == 17 && nan?.column == "ay", "\(String(describing: nan))")
        #expect(nan?.description.contains("row 18, column 'ay'") == true)

        var withText = good
        var az = Self.values(good["az"].map(to: String.self))
        az[3] = "fast"
        withText.addColumn(MLDataColumn(az), named: "az")
        #expect(train(withText)?.message.contains("is not a number") == true)

        let short = SyntheticMotion.table(sessions: 1, length: 7, seed: 2, firstSession: 50)
        var both = good
        both.append(contentsOf: short)
        let tooShort = train(both)
        #expect(tooShort?.message.contains("fewer than one prediction window") == true, "\(String(describing: tooShort))")

        parameters.maximumIterations = 0
        #expect(train(good)?.location == "maximumIterations")

        // Evaluation does not throw: an unknown activity makes the metrics invalid, naming the row.
        let classifier = try Self.trained.get()
        var strange = Self.test.prefix(40)
        var labels = Self.values(strange["activity"].strings!)
        labels[33] = "juggle"
        strange.addColumn(MLDataColumn(labels), named: "activity")
        let metrics = classifier.evaluation(on: strange)
        #expect(!metrics.isValid)
        #expect((metrics.error as? CreateMLError)?.row == 33)
    }
}
