import CoreMLSpec
import Foundation
import OpenCoreML
import Testing
import _OpenCoreMLTestSupport

/// Personalizing k-NN classifiers and k-NN pipelines with `MLUpdateTask`, and removing samples.
@Suite("k-NN training and editing")
struct NearestNeighborsTrainingTests {
    typealias Completion = UpdateTaskTests.Completion

    /// A 1×28×28 picture of class `label` (`SquarePictures`).
    static func image(label: Int, random: inout TestRandom) -> MLFeatureValue {
        let array = try! MLMultiArray(shape: [1, 28, 28], dataType: .float32)
        for (index, value) in SquarePictures.pixels(label: label, random: &random).enumerated() { array[index] = NSNumber(value: value) }
        return MLFeatureValue(multiArray: array)
    }

    static let gestures = ["✊", "✋", "✌️"]

    static func examples(_ labels: [Int], seed: UInt64) -> MLArrayBatchProvider {
        var random = TestRandom(seed: seed)
        return MLArrayBatchProvider(array: labels.map { label in
            MLDictionaryFeatureProvider(featureValues: ["image": image(label: label, random: &random), "label": MLFeatureValue(string: gestures[label])])
        })
    }

    static func labels(of model: MLModel, on batch: MLArrayBatchProvider) throws -> [String] {
        let outputs = try model.predictions(fromBatch: batch)
        return (0..<outputs.count).map { outputs.features(at: $0).featureValue(for: "label")?.stringValue ?? "?" }
    }

    static func train(_ url: URL, on batch: MLBatchProvider, configuration: MLModelConfiguration? = nil) throws -> MLUpdateContext {
        let completion = Completion()
        let task = try MLUpdateTask(forModelAt: url, trainingData: batch, configuration: configuration, completionHandler: completion.finish)
        task.resume()
        let context = try #require(completion.wait())
        if let error = context.task.error { throw error }
        return context
    }

    /// The seeds' personalization app: frozen feature extractor + empty updatable k-NN.
    @Test func theSeedsPersonalizationPipelineLearnsOneExampleAtATime() throws {
        try withTemporaryDirectory { folder in
            let heldOut = Self.examples(Array(repeating: [0, 1, 2], count: 8).flatMap { $0 }, seed: 99)
            let empty = try MLModel(contentsOf: Fixtures.url("pipeline_knn.mlmodel"))
            #expect(Set(try Self.labels(of: empty, on: heldOut)) == ["unknown"])

            // One example of one class: everything is that class.
            let first = try Self.train(Fixtures.url("pipeline_knn.mlmodel"), on: Self.examples([1], seed: 1))
            #expect(Set(try Self.labels(of: first.model, on: heldOut)) == ["✋"])
            let afterOne = folder.appendingPathComponent("one.mlmodel")
            try first.model.write(to: afterOne)

            // Then examples of all three classes, from the saved model.
            let second = try Self.train(afterOne, on: Self.examples([0, 2, 0, 2, 1, 0, 2, 1, 0, 2], seed: 2))
            #expect(second.model.sampleCount == 11)
            let predicted = try Self.labels(of: second.model, on: heldOut)
            let correct = zip(predicted, (0..<heldOut.count).map { Self.gestures[$0 % 3] }).filter { $0 == $1 }.count
            #expect(Double(correct) / Double(heldOut.count) >= 0.9, "\(predicted)")

            // Saved, reloaded, same answers.
            let saved = folder.appendingPathComponent("personal.mlmodel")
            try second.model.write(to: saved)
            let reloaded = try MLModel(contentsOf: saved)
            #expect(try Self.labels(of: reloaded, on: heldOut) == predicted)
            let spec = try CoreML_Specification_Model(contentsOf: saved)
            try spec.validate()
        }
    }

    @Test func kChangesThroughTheConfigurationAndTheUpdateContext() throws {
        try withTemporaryDirectory { folder in
            // Two "✋" samples far apart and one "✊" in the middle: k = 1 and k = 3 disagree.
            let url = folder.appendingPathComponent("knn.mlmodel")
            var spec = try Fixtures.model("knn_empty_string.mlmodel")
            spec.kNearestNeighborsClassifier.numberOfNeighbors.range.minValue = 1
            spec.kNearestNeighborsClassifier.numberOfNeighbors.range.maxValue = 5
            spec.kNearestNeighborsClassifier.uniformWeighting = .init()
            try spec.write(to: url)
            func row(_ value: Float) -> MLFeatureValue { NearestNeighborsTests.vector([Float](repeating: value, count: 8)) }
            let batch = MLArrayBatchProvider(array: [
                MLDictionaryFeatureProvider(featureValues: ["features": row(0), "label": MLFeatureValue(string: "✋")]),
                MLDictionaryFeatureProvider(featureValues: ["features": row(1), "label": MLFeatureValue(string: "✊")]),
                MLDictionaryFeatureProvider(featureValues: ["features": row(2), "label": MLFeatureValue(string: "✋")]),
            ])
            let query = MLArrayBatchProvider(array: [MLDictionaryFeatureProvider(featureValues: ["features": row(1.1)])])

            let configuration = MLModelConfiguration()
            configuration.parameters = [.numberOfNeighbors: 1]
            let context = try Self.train(url, on: batch, configuration: configuration)
            #expect(context.parameters[.numberOfNeighbors] as? Int == 1)
            #expect(try Self.labels(of: context.model, on: query) == ["✊"])

            let three = MLModelConfiguration()
            three.parameters = [.numberOfNeighbors: 3]
            let written = folder.appendingPathComponent("trained.mlmodel")
            try context.model.write(to: written)
            #expect(try Self.labels(of: MLModel(contentsOf: written, configuration: three), on: query) == ["✋"])

            // From a progress handler, as Core ML's tutorials change parameters.
            let completion = Completion()
            let handlers = MLUpdateProgressHandlers(forEvents: [.trainingBegin], progressHandler: { context in
                context.task.resume(withParameters: [.numberOfNeighbors: 3])
            }, completionHandler: completion.finish)
            let task = try MLUpdateTask(forModelAt: url, trainingData: batch, configuration: configuration, progressHandlers: handlers)
            task.resume()
            let done = try #require(completion.wait())
            #expect(done.parameters[.numberOfNeighbors] as? Int == 3)
            #expect(try Self.labels(of: done.model, on: query) == ["✋"])

            let rejected = MLModelConfiguration()
            rejected.parameters = [.numberOfNeighbors: 9]
            #expect { _ = try Self.train(url, on: batch, configuration: rejected) } throws: { "\($0)".contains("numberOfNeighbors") }
        }
    }

    @Test func aLabelOfTheWrongTypeIsAClearError() throws {
        let batch = MLArrayBatchProvider(array: [MLDictionaryFeatureProvider(featureValues: [
            "features": NearestNeighborsTests.vector([Float](repeating: 0, count: 8)), "label": MLFeatureValue(int64: 3),
        ])])
        #expect { _ = try Self.train(Fixtures.url("knn_empty_string.mlmodel"), on: batch) } throws: { error in
            "\(error)".contains("example 0") && "\(error)".contains("'label'")
        }
    }

    @Test func samplesAreRemovedByLabelIndexAndPredicate() throws {
        try withTemporaryDirectory { folder in
            let model = try MLModel(contentsOf: Fixtures.url("knn_linear_string.mlmodel"))
            #expect(model.sampleCount == 12)
            let labels = try #require(model.modelDescription.classLabels as? [String])
            let withoutFirst = try model.removingSamples(labeled: labels[0])
            let spec = withoutFirst.specification.kNearestNeighborsClassifier
            #expect(!spec.stringClassLabels.vector.contains(labels[0]))
            #expect(withoutFirst.sampleCount == 12 - model.specification.kNearestNeighborsClassifier.stringClassLabels.vector.filter { $0 == labels[0] }.count)

            let original = model.specification.kNearestNeighborsClassifier.nearestNeighborsIndex.floatSamples
            let withoutSome = try model.removingSamples(at: [0, 5, 11])
            #expect(withoutSome.specification.kNearestNeighborsClassifier.nearestNeighborsIndex.floatSamples
                    == original.enumerated().filter { ![0, 5, 11].contains($0.offset) }.map(\.element))

            let small = try model.removingSamples(where: { $0.values[0] > 2 })
            #expect(small.specification.kNearestNeighborsClassifier.nearestNeighborsIndex.floatSamples.allSatisfy { $0.vector[0] <= 2 })

            let url = folder.appendingPathComponent("edited.mlmodel")
            try withoutFirst.write(to: url)
            let reloaded = try MLModel(contentsOf: url)
            #expect(reloaded.sampleCount == withoutFirst.sampleCount)
            let output = try reloaded.prediction(from: MLDictionaryFeatureProvider(featureValues: ["features": NearestNeighborsTests.vector(original[0].vector)]))
            #expect(output.featureValue(for: "label")?.stringValue != labels[0])

            #expect { _ = try model.removingSamples(labeled: "durian") } throws: { "\($0)".contains("durian") }
            #expect { _ = try model.removingSamples(at: [12]) } throws: { "\($0)".contains("12") }
            #expect { _ = try MLModel(contentsOf: Fixtures.url("classifier_sgd.mlmodel")).removingSamples(at: [0]) } throws: { "\($0)".contains("not a k-NN") }
        }
    }
}
