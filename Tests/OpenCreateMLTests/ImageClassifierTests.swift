import CoreMLSpec
import Foundation
import OpenCoreML
import OpenCoreMLTools
import OpenCreateML
import Testing
import _OpenCoreMLTestSupport

/// `MLImageClassifier` on synthetic colour classes with a tiny random convolutional extractor.
@Suite("MLImageClassifier")
struct ImageClassifierTests {
    /// A fresh folder with train/ and test/ pictures, the extractor file and a cache folder.
    final class Workspace {
        let root: URL
        var train: URL { root.appendingPathComponent("train") }
        var test: URL { root.appendingPathComponent("test") }
        var extractor: URL { root.appendingPathComponent("extractor.mlmodel") }
        var cache: URL { root.appendingPathComponent("cache") }

        init(classes: [String] = ["red", "green", "blue"], trainCount: Int = 8, testCount: Int = 4) throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("createml-\(UUID().uuidString)")
            try SyntheticPictures.makeFolders(at: train, classes: classes, count: trainCount, seed: 1)
            try SyntheticPictures.makeFolders(at: test, classes: classes, count: testCount, seed: 2)
            try SyntheticPictures.extractor().write(to: extractor)
        }

        deinit { try? FileManager.default.removeItem(at: root) }

        func parameters(_ classifier: MLImageClassifier.ModelParameters.ClassifierType = .logisticRegressor,
                        validation: MLImageClassifier.ModelParameters.ValidationData = .none, maxIterations: Int = 30) -> MLImageClassifier.ModelParameters {
            var parameters = MLImageClassifier.ModelParameters(
                validation: validation, maxIterations: maxIterations, augmentation: [],
                algorithm: .transferLearning(featureExtractor: .custom(MLImageClassifier.CustomFeatureExtractor(modelPath: extractor)), classifier: classifier))
            parameters.cacheDirectory = cache
            return parameters
        }
    }

    /// Counts pictures whose features were computed rather than read from the cache.
    final class ExtractionCounter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        var extracted: Int { lock.withLock { count } }
        var handler: @Sendable (MLImageClassifier.Progress) -> Void {
            { event in
                if case .featuresExtracted(_, _, _, let fromCache) = event, !fromCache { self.lock.withLock { self.count += 1 } }
            }
        }
    }

    @Test func logisticRegressionSeparatesColoursAndKeepsTheBestValidationIteration() throws {
        let space = try Workspace()
        let classifier = try MLImageClassifier(trainingData: .labeledDirectories(at: space.train),
                                               parameters: space.parameters(validation: .split(strategy: .fixed(ratio: 0.25, seed: 3))))
        #expect(classifier.classLabels == ["blue", "green", "red"])
        #expect(classifier.trainingMetrics.exampleCount == 18 && classifier.validationMetrics.exampleCount == 6)
        #expect(classifier.trainingMetrics.accuracy == 1)
        let test = classifier.evaluation(on: .labeledDirectories(at: space.test))
        #expect(test.isValid && test.error == nil)
        #expect(test.exampleCount == 12)
        #expect(test.accuracy >= 0.9, "test accuracy \(test.accuracy), confusion \(test.confusionMatrix)")
        #expect(test.confusionMatrix.flatMap { $0 }.reduce(0, +) == 12)
        let diagonal: Int = (0..<3).map { test.confusionMatrix[$0][$0] }.reduce(0, +)
        #expect(test.misclassifiedExamples.count == 12 - diagonal)
        // The kept iteration is the first with the best validation accuracy, and the validation
        // metrics are that model's.
        let best = try #require(classifier.iterations.compactMap(\.validationAccuracy).max())
        let kept = try #require(classifier.keptIteration)
        #expect(classifier.iterations.first { $0.validationAccuracy == best }?.iteration == kept)
        #expect(classifier.validationMetrics.accuracy == best)
        #expect(classifier.iterations.count > kept || classifier.iterations.last?.validationAccuracy == best)
    }

    @Test func retrainingReadsTheFeatureCache() throws {
        let space = try Workspace()
        let first = ExtractionCounter()
        _ = try MLImageClassifier(trainingData: .labeledDirectories(at: space.train), parameters: space.parameters(), progress: first.handler)
        #expect(first.extracted == 24)
        let second = ExtractionCounter()
        var parameters = space.parameters(maxIterations: 5)
        parameters.penalty = .l1(1e-3)
        parameters.validation = .dataSource(.labeledDirectories(at: space.test))
        _ = try MLImageClassifier(trainingData: .labeledDirectories(at: space.train), parameters: parameters, progress: second.handler)
        #expect(second.extracted == 12)  // only the new validation pictures
        // A changed picture is extracted again.
        var random = TestRandom(seed: 9)
        try SyntheticPictures.png(colour: SyntheticPictures.colours["red"]!, random: &random)
            .write(to: space.train.appendingPathComponent("red/0.png"))
        let third = ExtractionCounter()
        _ = try MLImageClassifier(trainingData: .labeledDirectories(at: space.train), parameters: space.parameters(.kNearestNeighbors(k: 3)),
                                  progress: third.handler)
        #expect(third.extracted == 1)
    }

    @Test(arguments: [MLImageClassifier.ModelParameters.ClassifierType.logisticRegressor, .kNearestNeighbors(k: 3)])
    func exportedPipelinePredictsAsTheClassifier(algorithm: MLImageClassifier.ModelParameters.ClassifierType) throws {
        let space = try Workspace()
        let classifier = try MLImageClassifier(trainingData: .labeledDirectories(at: space.train), parameters: space.parameters(algorithm))
        let url = space.root.appendingPathComponent("classifier.mlmodel")
        try classifier.write(to: url)
        let spec = try CoreML_Specification_Model(contentsOf: url)
        try spec.validate()
        #expect(spec.isUpdatable)
        #expect(spec.modelTypeName == "pipelineClassifier")
        let model = try MLModel(contentsOf: url)
        let constraint = try #require(model.modelDescription.inputDescriptionsByName["image"]?.imageConstraint)
        var agree = 0, correct = 0
        let files = try FileManager.default.subpathsOfDirectory(atPath: space.test.path).filter { $0.hasSuffix(".png") }
        #expect(files.count == 12)
        for file in files {
            let picture = space.test.appendingPathComponent(file)
            let output = try model.prediction(from: MLDictionaryFeatureProvider(dictionary: ["image": try MLFeatureValue(imageAt: picture, constraint: constraint)]))
            let label = try #require(output.featureValue(for: "label")?.stringValue)
            if label == (try classifier.prediction(from: picture)) { agree += 1 }
            if label == file.split(separator: "/")[0] { correct += 1 }
        }
        #expect(agree == files.count)
        #expect(correct >= 11)
    }

    @Test func exportedNearestNeighboursLearnANewClassThroughMLUpdateTask() throws {
        let space = try Workspace(classes: ["red", "green"])
        let classifier = try MLImageClassifier(trainingData: .labeledDirectories(at: space.train), parameters: space.parameters(.kNearestNeighbors(k: 1)))
        let url = space.root.appendingPathComponent("knn.mlmodel")
        try classifier.write(to: url)
        try SyntheticPictures.makeFolders(at: space.root.appendingPathComponent("new"), classes: ["yellow"], count: 6, seed: 5)
        let model = try MLModel(contentsOf: url)
        let constraint = try #require(model.modelDescription.inputDescriptionsByName["image"]?.imageConstraint)
        func picture(_ i: Int) throws -> MLFeatureValue {
            try MLFeatureValue(imageAt: space.root.appendingPathComponent("new/yellow/\(i).png"), constraint: constraint)
        }
        let before = try model.prediction(from: MLDictionaryFeatureProvider(dictionary: ["image": picture(5)])).featureValue(for: "label")?.stringValue
        #expect(before != "yellow")
        let examples: [MLFeatureProvider] = try (0..<4).map {
            try MLDictionaryFeatureProvider(dictionary: ["image": picture($0), "label": MLFeatureValue(string: "yellow")])
        }
        let updated = try Updating.train(url, on: examples)
        for i in 4..<6 {
            let label = try updated.prediction(from: MLDictionaryFeatureProvider(dictionary: ["image": picture(i)])).featureValue(for: "label")?.stringValue
            #expect(label == "yellow")
        }
        let red = try MLFeatureValue(imageAt: space.test.appendingPathComponent("red/0.png"), constraint: constraint)
        #expect(try updated.prediction(from: MLDictionaryFeatureProvider(dictionary: ["image": red])).featureValue(for: "label")?.stringValue == "red")
    }

    @Test func exportedLogisticRegressionTrainsFurtherThroughMLUpdateTask() throws {
        let space = try Workspace()
        let classifier = try MLImageClassifier(trainingData: .labeledDirectories(at: space.train), parameters: space.parameters(maxIterations: 3))
        let url = space.root.appendingPathComponent("logistic.mlmodel")
        try classifier.write(to: url)
        let model = try MLModel(contentsOf: url)
        let constraint = try #require(model.modelDescription.inputDescriptionsByName["image"]?.imageConstraint)
        var examples: [MLFeatureProvider] = []
        for label in ["red", "green", "blue"] {
            for i in 0..<8 {
                let image = try MLFeatureValue(imageAt: space.train.appendingPathComponent("\(label)/\(i).png"), constraint: constraint)
                examples.append(try MLDictionaryFeatureProvider(dictionary: ["image": image, "label": MLFeatureValue(string: label)]))
            }
        }
        let (updated, losses) = try Updating.trainWithLosses(url, on: examples)
        #expect(losses.count == 10)
        #expect(losses.last! < losses.first!, "losses \(losses)")
        #expect(updated.specification.isUpdatable)
    }

    @Test func badInputIsOneClearError() throws {
        let space = try Workspace()
        func failure(_ data: URL, _ parameters: MLImageClassifier.ModelParameters) -> String {
            do {
                _ = try MLImageClassifier(trainingData: .labeledDirectories(at: data), parameters: parameters)
                return "no error"
            } catch { return "\(error)" }
        }
        let empty = space.root.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        #expect(failure(empty, space.parameters()).contains("no pictures"))
        let single = space.root.appendingPathComponent("single")
        try SyntheticPictures.makeFolders(at: single, classes: ["red"], count: 2, seed: 4)
        #expect(failure(single, space.parameters()).contains("at least 2 classes"))
        try Data("not a picture".utf8).write(to: space.train.appendingPathComponent("red/broken.png"))
        let broken = failure(space.train, space.parameters())
        #expect(broken.contains("broken.png") && broken.contains("cannot read"), "\(broken)")
        try FileManager.default.removeItem(at: space.train.appendingPathComponent("red/broken.png"))
        // A k-NN model (multi-array input) is no feature extractor.
        let knn = space.root.appendingPathComponent("knn.mlmodel")
        try Model { Input(name: "x", shape: [2]); KNearestNeighborsClassifier(samples: [[0, 0], [1, 1]], labels: ["a", "b"]) }.write(to: knn)
        var parameters = space.parameters()
        parameters.featureExtractor = .custom(MLImageClassifier.CustomFeatureExtractor(modelPath: knn))
        #expect(failure(space.train, parameters).contains("not a feature extractor"))
        parameters.featureExtractor = .custom(MLImageClassifier.CustomFeatureExtractor(modelPath: space.root.appendingPathComponent("missing.mlmodel")))
        #expect(failure(space.train, parameters).contains("missing.mlmodel"))
        parameters.featureExtractor = .custom(MLImageClassifier.CustomFeatureExtractor(modelPath: space.extractor, outputName: "nowhere"))
        #expect(failure(space.train, parameters).contains("nowhere"))
        parameters.featureExtractor = .scenePrint(revision: 7)
        #expect(failure(space.train, parameters).contains("revision 7"))
    }
}

/// Runs `MLUpdateTask` to completion.
enum Updating {
    final class Completion: @unchecked Sendable {
        let semaphore = DispatchSemaphore(value: 0)
        var context: MLUpdateContext?
        var losses: [Double] = []
    }

    static func train(_ url: URL, on examples: [MLFeatureProvider]) throws -> MLModel {
        try trainWithLosses(url, on: examples).model
    }

    static func trainWithLosses(_ url: URL, on examples: [MLFeatureProvider]) throws -> (model: MLModel, losses: [Double]) {
        let completion = Completion()
        let handlers = MLUpdateProgressHandlers(
            forEvents: [.epochEnd],
            progressHandler: { context in
                if let loss = context.metrics[.lossValue] as? Double { completion.losses.append(loss) }
            },
            completionHandler: { context in
                completion.context = context
                completion.semaphore.signal()
            })
        let task = try MLUpdateTask(forModelAt: url, trainingData: MLArrayBatchProvider(array: examples),
                                    configuration: MLModelConfiguration(), progressHandlers: handlers)
        task.resume()
        _ = completion.semaphore.wait(timeout: .now() + 300)
        let context = try #require(completion.context)
        if let error = context.task.error { throw error }
        return (context.model, completion.losses)
    }
}
