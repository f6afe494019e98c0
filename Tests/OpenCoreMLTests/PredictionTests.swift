import CoreMLSpec
import Foundation
import OpenCoreML
import Testing
import _OpenCoreMLTestSupport

@Suite("Predictions")
struct PredictionTests {
    @Test func leNetOutputsAProbabilityVectorOfTheDeclaredShape() throws {
        let model = try MLModel(contentsOf: Fixtures.url("lenet_updatable.mlmodel"))
        let image = try MLMultiArray(shape: [1, 28, 28], dataType: .float32)
        var random = TestRandom(seed: 3)
        for index in 0..<image.count { image[index] = NSNumber(value: random.float(0, 1)) }
        let output = try model.prediction(from: MLDictionaryFeatureProvider(dictionary: ["image": image]))
        let probabilities = try #require(output.featureValue(for: "output")?.multiArrayValue)
        #expect(probabilities.shape == [10])
        let values = probabilities.floatValues()
        #expect(abs(values.reduce(0, +) - 1) < 1e-5)
        #expect(values.allSatisfy { $0 > 0 && $0 < 1 })
    }

    @Test func batchPredictionsEqualSinglePredictions() throws {
        let model = try MLModel(contentsOf: Fixtures.url("lenet_updatable.mlmodel"))
        var random = TestRandom(seed: 4)
        // More examples than one engine batch (64), with double inputs to exercise conversion.
        let providers: [MLFeatureProvider] = try (0..<70).map { _ in
            let image = try MLMultiArray(shape: [1, 28, 28], dataType: .double)
            for index in 0..<image.count { image[index] = NSNumber(value: random.float(0, 1)) }
            return try MLDictionaryFeatureProvider(dictionary: ["image": image])
        }
        let batch = try model.predictions(fromBatch: MLArrayBatchProvider(array: providers))
        #expect(batch.count == 70)
        for index in [0, 1, 63, 64, 69] {
            let single = try model.prediction(from: providers[index]).featureValue(for: "output")!.multiArrayValue!.floatValues()
            let batched = batch.features(at: index).featureValue(for: "output")!.multiArrayValue!.floatValues()
            #expect(zip(single, batched).allSatisfy { abs($0 - $1) < 1e-5 })
        }
    }

    @Test func classifierGivesALabelAndAProbabilityDictionary() throws {
        let model = try MLModel(contentsOf: Fixtures.url("classifier_sgd.mlmodel"))
        let output = try model.prediction(from: MLDictionaryFeatureProvider(featureValues: ["features": TrainingExamples.features([0.3, -0.2, 0.1, 0.9])]))
        let label = try #require(output.featureValue(for: "classLabel")?.stringValue)
        let scores = try #require(output.featureValue(for: "classProbability")?.dictionaryValue)
        #expect(Set(scores.keys.compactMap { $0.base as? String }) == Set(TrainingExamples.labels))
        #expect(abs(scores.values.map(\.doubleValue).reduce(0, +) - 1) < 1e-5)
        let best = scores.max { $0.value.doubleValue < $1.value.doubleValue }!.key.base as! String
        #expect(label == best)
    }

    @Test func wrongShapeAndMissingInputAreClearErrors() throws {
        let model = try MLModel(contentsOf: Fixtures.url("lenet_updatable.mlmodel"))
        let wrong = try MLMultiArray(shape: [1, 27, 28], dataType: .float32)
        #expect {
            try model.prediction(from: MLDictionaryFeatureProvider(dictionary: ["image": wrong]))
        } throws: { error in
            "\(error)".contains("'image'") && "\(error)".contains("[1, 27, 28]") && "\(error)".contains("[1, 28, 28]")
        }
        #expect {
            try model.prediction(from: MLDictionaryFeatureProvider(dictionary: ["picture": wrong]))
        } throws: { error in
            "\(error)".contains("input 'image' is missing")
        }
    }

    @Test func asyncPredictionMatches() async throws {
        let model = try MLModel(contentsOf: Fixtures.url("classifier_sgd.mlmodel"))
        let input = MLDictionaryFeatureProvider(featureValues: ["features": TrainingExamples.features([1, 2, 3, 4])])
        let asyncLabel = try await model.prediction(from: input).featureValue(for: "classLabel")?.stringValue
        let predictSynchronously = { () throws -> String? in try model.prediction(from: input).featureValue(for: "classLabel")?.stringValue }
        let syncLabel = try predictSynchronously()
        #expect(asyncLabel != nil && asyncLabel == syncLabel)
    }
}
