import CoreMLSpec
import Foundation
import OpenCoreML
import OpenCoreMLTools
import Testing
import _OpenCoreMLTestSupport

/// The seeds' recipe made entirely in Swift: strip a trained classifier into a feature extractor,
/// put an empty k-NN behind it with the DSL, and personalize the pipeline on device.
@Suite("Personalization pipeline built in Swift")
struct PersonalizationTests {
    /// A 1×28×28 picture of class `label` (`SquarePictures`).
    static func image(label: Int, random: inout TestRandom) -> MLFeatureValue {
        let array = try! MLMultiArray(shape: [1, 28, 28], dataType: .float32)
        for (index, value) in SquarePictures.pixels(label: label, random: &random).enumerated() { array[index] = NSNumber(value: value) }
        return MLFeatureValue(multiArray: array)
    }

    @Test func strippedLeNetPlusDSLKNearestNeighborsLearnsNewClasses() async throws {
        let extractor = try Fixtures.model("lenet_updatable.mlmodel").featureExtractor(outputBlob: "relu3_out", outputName: "features")
        let knn = try Model {
            Input(name: "features", shape: [500])
            KNearestNeighborsClassifier(numberOfNeighbors: 3, weighting: .inverseDistance, defaultLabel: "unknown")
        }.makeSpecification()
        let pipeline = try MLModel(specification: CoreML_Specification_Model.pipeline([extractor, knn]))

        let names = ["left", "middle", "right"]
        var random = TestRandom(seed: 31)
        let train = MLArrayBatchProvider(array: (0..<9).map { index in
            MLDictionaryFeatureProvider(featureValues: ["image": Self.image(label: index % 3, random: &random), "label": MLFeatureValue(string: names[index % 3])])
        })
        let heldOut = (0..<15).map { index in (index % 3, MLDictionaryFeatureProvider(featureValues: ["image": Self.image(label: index % 3, random: &random)])) }

        let before = try await pipeline.prediction(from: heldOut[0].1)
        #expect(before.featureValue(for: "label")?.stringValue == "unknown")
        let trained = try await pipeline.update(with: train)
        #expect(trained.sampleCount == 9)
        let correct = try heldOut.filter { label, example in
            try trained.prediction(from: example).featureValue(for: "label")?.stringValue == names[label]
        }.count
        #expect(correct >= 14, "\(correct) of 15")
        try trained.specification.validate()
    }
}
