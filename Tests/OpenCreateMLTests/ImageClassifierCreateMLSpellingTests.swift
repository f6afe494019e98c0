import CoreMLSpec
import Foundation
import OpenCoreML
import OpenCreateML
import Testing
import _OpenCoreMLTestSupport

/// Create ML's own spellings of the image classifier: both generations of `ModelParameters`, the
/// feature extractor types, `evaluation(on:)` that reports failures in the metrics, metadata on
/// export, `model`, and cross-validation (ours).
@Suite("MLImageClassifier, Create ML spellings")
struct ImageClassifierCreateMLSpellingTests {
    typealias Parameters = MLImageClassifier.ModelParameters

    @Test func bothGenerationsOfModelParametersSayTheSame() {
        let defaults = Parameters()
        #expect(defaults.algorithm == .transferLearning(featureExtractor: .scenePrint(revision: 1), classifier: .logisticRegressor))
        #expect(defaults.maxIterations == 25 && defaults.augmentation.isEmpty)
        if case .split(strategy: .automatic) = defaults.validation {} else { Issue.record("validation \(defaults.validation)") }
        #expect(defaults.penalty == Parameters.defaultPenalty)

        let model = URL(fileURLWithPath: "/models/Extractor.mlmodel")
        let custom = MLImageClassifier.FeatureExtractorType.custom(MLImageClassifier.CustomFeatureExtractor(modelPath: model, outputName: "pool"))
        let old = Parameters(featureExtractor: custom, validation: .none, maxIterations: 7, augmentationOptions: [.flip, .crop])
        let new = Parameters(validation: .none, maxIterations: 7, augmentation: [.flip, .crop],
                             algorithm: .transferLearning(featureExtractor: custom, classifier: .logisticRegressor))
        #expect(old.algorithm == new.algorithm && old.maxIterations == new.maxIterations)
        #expect(old.augmentationOptions == new.augmentation && old.featureExtractor == custom)
        let oldest = Parameters(validationData: .labeledDirectories(at: model))
        if case .dataSource = oldest.validation {} else { Issue.record("validation \(oldest.validation)") }

        var changed = new
        changed.classifier = .kNearestNeighbors(k: 3)
        changed.featureExtractor = .scenePrint(revision: 2)
        #expect(changed.algorithm == .transferLearning(featureExtractor: .scenePrint(revision: 2), classifier: .kNearestNeighbors(k: 3)))
        changed.augmentationOptions = [.noise]
        #expect(changed.augmentation == [.noise])
        #expect("\(changed.algorithm)" == "transferLearning(scenePrint(revision: 2), kNearestNeighbors(k: 3))")
    }

    @Test func evaluationReportsFailuresInTheMetrics() throws {
        let space = try ImageClassifierTests.Workspace(classes: ["red", "green"], trainCount: 4, testCount: 2)
        let classifier = try MLImageClassifier(trainingData: .labeledDirectories(at: space.train), parameters: space.parameters())
        let fine = classifier.evaluation(on: .labeledDirectories(at: space.test))
        #expect(fine.isValid && fine.error == nil && fine.exampleCount == 4)

        let missing = classifier.evaluation(on: .labeledDirectories(at: space.root.appendingPathComponent("nowhere")))
        #expect(!missing.isValid && missing.exampleCount == 0)
        #expect("\(missing.error!)".contains("nowhere"))

        try SyntheticPictures.makeFolders(at: space.root.appendingPathComponent("other"), classes: ["blue"], count: 1, seed: 8)
        let unknown = classifier.evaluation(on: .labeledDirectories(at: space.root.appendingPathComponent("other")))
        #expect(!unknown.isValid)
        #expect("\(unknown.error!)".contains("blue"), "\(unknown.error!)")

        // Create ML's dictionary forms.
        let files = ["red": [space.test.appendingPathComponent("red/0.png")], "green": [space.test.appendingPathComponent("green/1.png")]]
        #expect(classifier.evaluation(on: files).exampleCount == 2)
        #expect(try classifier.predictions(from: files["red"]! + files["green"]!).count == 2)
        let byDictionary = try MLImageClassifier(
            trainingData: ["red": (0..<4).map { space.train.appendingPathComponent("red/\($0).png") },
                           "green": (0..<4).map { space.train.appendingPathComponent("green/\($0).png") }],
            parameters: space.parameters())
        #expect(byDictionary.classLabels == ["green", "red"] && byDictionary.trainingMetrics.exampleCount == 8)
    }

    @Test func writeStoresMetadataAndModelPredictsAsTheClassifier() throws {
        let space = try ImageClassifierTests.Workspace(classes: ["red", "green"], trainCount: 4, testCount: 2)
        let classifier = try MLImageClassifier(trainingData: .labeledDirectories(at: space.train), parameters: space.parameters())
        let url = space.root.appendingPathComponent("Colours.mlmodel")
        let metadata = MLModelMetadata(author: "Ada", shortDescription: "Red or green", license: "CC0", version: "2.1", additional: ["origin": "test"])
        try classifier.write(to: url, metadata: metadata)
        let written = try MLModel(contentsOf: url)
        let stored = written.modelDescription.metadata
        #expect(stored[.author] as? String == "Ada" && stored[.description] as? String == "Red or green")
        #expect(stored[.license] as? String == "CC0" && stored[.versionString] as? String == "2.1")
        let creator = try #require(stored[.creatorDefinedKey] as? [String: String])
        #expect(creator["origin"] == "test" && creator["com.opencoreml.trainer"] != nil)

        try classifier.write(toFile: space.root.appendingPathComponent("Plain.mlmodel").path)
        let plain = try MLModel(contentsOf: space.root.appendingPathComponent("Plain.mlmodel"))
        #expect((plain.modelDescription.metadata[.description] as? String)?.contains("red") == true)
        #expect(MLModelMetadata().version == "1")

        let constraint = try #require(classifier.model.modelDescription.inputDescriptionsByName["image"]?.imageConstraint)
        for label in ["red", "green"] {
            for index in 0..<2 {
                let picture = space.test.appendingPathComponent("\(label)/\(index).png")
                let output = try classifier.model.prediction(from: MLDictionaryFeatureProvider(
                    dictionary: ["image": MLFeatureValue(imageAt: picture, constraint: constraint)]))
                #expect(output.featureValue(for: "label")?.stringValue == (try classifier.prediction(from: picture)))
            }
        }
    }

    @Test func customExtractorCutAtALayer() throws {
        let space = try ImageClassifierTests.Workspace(classes: ["red", "green"], trainCount: 4, testCount: 2)
        var parameters = space.parameters()
        parameters.featureExtractor = .custom(MLImageClassifier.CustomFeatureExtractor(modelPath: space.extractor, outputName: "relu_out"))
        let classifier = try MLImageClassifier(trainingData: .labeledDirectories(at: space.train), parameters: parameters)
        #expect(classifier.extractor.outputName == "relu_out" && classifier.extractor.featureCount == 8 * 16 * 16)
        #expect(classifier.trainingMetrics.accuracy == 1)
        // The whole model's features are cached apart from the layer's.
        let whole = try ImageFeatureExtractor(.custom(MLImageClassifier.CustomFeatureExtractor(modelPath: space.extractor)))
        #expect(whole.featureCount == 8 && whole.fingerprint != classifier.extractor.fingerprint)
    }

    @Test func flipAugmentationAddsOneMirroredCopyPerPicture() throws {
        let space = try ImageClassifierTests.Workspace(classes: ["red", "green"], trainCount: 3, testCount: 1)
        var parameters = space.parameters()
        parameters.augmentation = [.flip]
        let counter = ImageClassifierTests.ExtractionCounter()
        let classifier = try MLImageClassifier(trainingData: .labeledDirectories(at: space.train), parameters: parameters, progress: counter.handler)
        #expect(counter.extracted == 12)
        #expect(classifier.trainingMetrics.exampleCount == 6)
    }

    @Test func crossValidationHoldsEachPictureOutOnce() throws {
        let space = try ImageClassifierTests.Workspace(classes: ["red", "green", "blue"], trainCount: 5, testCount: 1)
        let result = try MLImageClassifier.crossValidation(on: .labeledDirectories(at: space.train), folds: 5, seed: 1, parameters: space.parameters())
        #expect(result.folds.count == 5 && result.exampleCount == 15)
        #expect(result.folds.allSatisfy { $0.exampleCount == 3 && $0.classLabels == ["blue", "green", "red"] })
        #expect(result.accuracy >= 0.8, "accuracy \(result.accuracy)")
        #expect(result.correctCount == result.folds.map(\.correctCount).reduce(0, +))
        #expect(throws: CreateMLError.self) {
            try MLImageClassifier.crossValidation(on: .labeledDirectories(at: space.train), folds: 6, parameters: space.parameters())
        }
    }
}

/// OpenCreateML's article "Training an Image Classifier" (`OpenCreateML.docc/ImageClassifier.md`): the
/// Create ML code, run as written on generated pictures with the built-in feature extractor (keep
/// the two in step).
@Suite("README image classifier example")
struct ImageClassifierReadmeExampleTests {
    static func readmeExample(trainURL: URL, testURL: URL, photoURL: URL, modelURL: URL) throws -> MLClassifierMetrics {
        let parameters = MLImageClassifier.ModelParameters(
            validation: .split(strategy: .fixed(ratio: 0.2, seed: 0)),        // or .dataSource(...), .none
            maxIterations: 25,
            augmentation: [.flip],                                              // .crop .rotation .blur .exposure .noise .flip
            algorithm: .transferLearning(featureExtractor: .scenePrint(revision: 1), classifier: .logisticRegressor))
        // Create ML 1–2: ModelParameters(featureExtractor: .scenePrint(revision: 1), validation: .none,
        //                                maxIterations: 25, augmentationOptions: [.flip])
        let classifier = try MLImageClassifier(trainingData: .labeledDirectories(at: trainURL), parameters: parameters)
        print(classifier.trainingMetrics.accuracy, classifier.validationMetrics.accuracy)

        let metrics = classifier.evaluation(on: .labeledDirectories(at: testURL))  // does not throw
        if metrics.isValid {
            print(metrics.accuracy, metrics.precision(of: "✋"), metrics.confusion)
        } else {
            print(metrics.error!)                                                // names the folder or file
        }
        try classifier.write(to: modelURL, metadata: MLModelMetadata(author: "Me", shortDescription: "Hand gestures", version: "1.0"))
        print(try classifier.prediction(from: photoURL))                        // classifier.model is the written pipeline
        return metrics
    }

    @Test func runsAsWritten() throws {
        try withTemporaryDirectory { folder in
            let train = folder.appendingPathComponent("train"), test = folder.appendingPathComponent("test")
            try SyntheticPictures.makeFolders(at: train, classes: ["red", "blue"], count: 5, seed: 21)
            try SyntheticPictures.makeFolders(at: test, classes: ["red", "blue"], count: 1, seed: 22)
            let model = folder.appendingPathComponent("Colours.mlmodel")
            let metrics = try Self.readmeExample(trainURL: train, testURL: test, photoURL: test.appendingPathComponent("red/0.png"), modelURL: model)
            #expect(metrics.isValid && metrics.exampleCount == 2)
            #expect(try MLModel(contentsOf: model).modelDescription.metadata[.author] as? String == "Me")
        }
    }
}
