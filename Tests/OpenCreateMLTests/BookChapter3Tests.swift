import Foundation
import OpenCoreML      // was: import CoreML
import OpenCreateML    // was: import CreateML
import Testing
import _OpenCoreMLTestSupport

/// The book's chapter 3: an image classifier trained with Create ML in a playground — Create ML 1's
/// spelling of the parameters (`validationData: nil`, every augmentation), the metrics, metadata,
/// the written model — then the saved model used through Core ML. `chapter3` is that code with only
/// its imports changed (the playground's paths become parameters); the test runs it on generated
/// pictures and checks what the book's reader checks by eye.
@Suite("Book chapter 3: Create ML, then Core ML")
struct BookChapter3Tests {
    struct Result {
        var trainingAccuracy: Double
        var validationAccuracy: Double
        var evaluation: MLClassifierMetrics
        var classifier: MLImageClassifier
    }

    static func chapter3(trainingDir: URL, testingDir: URL, modelURL: URL) throws -> Result {
        let parameters = MLImageClassifier.ModelParameters(
            featureExtractor: .scenePrint(revision: 1),
            validationData: nil,
            maxIterations: 25,
            augmentationOptions: [.crop, .rotation, .blur, .exposure, .noise, .flip])
        let classifier = try MLImageClassifier(trainingData: .labeledDirectories(at: trainingDir), parameters: parameters)

        let trainingAccuracy = (1.0 - classifier.trainingMetrics.classificationError) * 100
        let validationAccuracy = (1.0 - classifier.validationMetrics.classificationError) * 100
        print("training accuracy \(trainingAccuracy) %, validation accuracy \(validationAccuracy) %")

        let evaluation = classifier.evaluation(on: .labeledDirectories(at: testingDir))
        print("test accuracy \((1.0 - evaluation.classificationError) * 100) %")
        print(evaluation.precisionRecall)
        print(evaluation.confusion)

        let metadata = MLModelMetadata(author: "Me", shortDescription: "A model trained to classify colours", version: "1.0")
        try classifier.write(to: modelURL, metadata: metadata)
        return Result(trainingAccuracy: trainingAccuracy, validationAccuracy: validationAccuracy, evaluation: evaluation, classifier: classifier)
    }

    @Test func runsAsWrittenAndTheSavedModelClassifiesInCoreML() throws {
        try withTemporaryDirectory { folder in
            let train = folder.appendingPathComponent("train"), test = folder.appendingPathComponent("test")
            let classes = ["blue", "green", "red"]
            try SyntheticPictures.makeFolders(at: train, classes: classes, count: 17, seed: 31)
            try SyntheticPictures.makeFolders(at: test, classes: classes, count: 2, seed: 32)
            let modelURL = folder.appendingPathComponent("Colours.mlmodel")
            let result = try Self.chapter3(trainingDir: train, testingDir: test, modelURL: modelURL)

            // `validationData: nil` is the automatic split: of 50 or more pictures, 10 % of each
            // class held out (2 of 17). The six augmentations add an augmented copy of each
            // training picture; the metrics count pictures, not copies.
            #expect(result.classifier.validationMetrics.exampleCount == 6)
            #expect(result.classifier.trainingMetrics.exampleCount == 45)
            #expect(result.validationAccuracy == 100)
            #expect(result.trainingAccuracy == 100)
            #expect(result.evaluation.isValid && result.evaluation.exampleCount == 6)
            #expect(result.evaluation.accuracy == 1, "\(result.evaluation.confusionMatrix)")
            #expect(result.evaluation.precisionRecall.size.rows == 3)

            // In the app: Core ML loads the saved model and gives the classifier's labels.
            let model = try MLModel(contentsOf: modelURL)
            #expect(model.modelDescription.metadata[.author] as? String == "Me")
            #expect(model.modelDescription.metadata[.versionString] as? String == "1.0")
            let constraint = try #require(model.modelDescription.inputDescriptionsByName["image"]?.imageConstraint)
            let labelName = try #require(model.modelDescription.predictedFeatureName)
            for label in classes {
                for index in 0..<2 {
                    let picture = test.appendingPathComponent("\(label)/\(index).png")
                    let output = try model.prediction(from: MLDictionaryFeatureProvider(
                        dictionary: ["image": MLFeatureValue(imageAt: picture, constraint: constraint)]))
                    #expect(output.featureValue(for: labelName)?.stringValue == label, "\(label)/\(index).png")
                }
            }
        }
    }

    @Test func validationDataByLabelIsCreateML1sOtherSpelling() throws {
        let pictures = [URL(fileURLWithPath: "/a/1.png")]
        let parameters = MLImageClassifier.ModelParameters(validationData: ["x": pictures, "y": pictures], maxIterations: 5)
        guard case .dataSource(.filesByLabel(let byLabel)) = parameters.validation else {
            Issue.record("validation is \(parameters.validation)")
            return
        }
        #expect(byLabel["x"] == pictures && parameters.maxIterations == 5)
        guard case .split(strategy: .automatic) = MLImageClassifier.ModelParameters(validationData: nil).validation else {
            Issue.record("nil validation data is not the automatic split")
            return
        }
        #expect(throws: CreateMLError.self) { try MLImageClassifier.DataSource.filesByLabel([:]).labeledImages() }
    }
}
