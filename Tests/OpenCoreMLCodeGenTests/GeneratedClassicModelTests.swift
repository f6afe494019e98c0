import Foundation
import OpenCoreML
import Testing
import _OpenCoreMLTestSupport

/// Typed classes generated for classic models that coremltools converted from scikit-learn
/// (copies of two `Tests/Fixtures/classic` models): ten number inputs into a pipeline (feature
/// vectorizer, imputer, scaler, SVR), and a random forest with a string label and a probability
/// dictionary. The answers are scikit-learn's, recorded in `classic.json`.
@Suite("Generated classes for classic models")
struct GeneratedClassicModelTests {
    static func firstExample(_ name: String) throws -> ClassicFixtures.Example {
        try #require(ClassicFixtures.named(name)?.examples.first)
    }

    @Test func aPipelineOfNumberInputsPredictsThroughItsTypedClass() throws {
        let example = try Self.firstExample("pipeline_impute_scale_svr_diabetes")
        let x = try (0..<10).map { try #require(example.inputs["x\($0)"]?.number) }
        let model = try DiabetesSVR(configuration: MLModelConfiguration())
        let output = try model.prediction(x0: x[0], x1: x[1], x2: x[2], x3: x[3], x4: x[4], x5: x[5], x6: x[6], x7: x[7], x8: x[8], x9: x[9])
        let expected = try #require(example.outputs["target"]?.number)
        #expect(abs(output.target - expected) <= 1e-5 * abs(expected), "\(output.target) vs scikit-learn's \(expected)")
    }

    @Test func aForestClassifierGivesATypedLabelAndProbabilities() throws {
        let example = try Self.firstExample("random_forest_iris")
        let values = try #require(example.inputs["input"]?.array).map { $0.number ?? .nan }
        let input = try MLMultiArray(shape: [4], dataType: .double)
        for (index, value) in values.enumerated() { input[index] = NSNumber(value: value) }
        let output = try IrisForest(configuration: MLModelConfiguration()).prediction(input: input)
        #expect(output.label == example.outputs["label"]?.string)
        let pairs = try #require(example.outputs["classProbability"]?.object?["dictionary"]?.array)
        #expect(pairs.count == 3)
        for pair in pairs {
            let entry = try #require(pair.array)
            let label = try #require(entry[0].string)
            #expect(abs((output.classProbability[label] ?? -1) - (entry[1].number ?? .nan)) < 1e-5, "\(label)")
        }
    }
}
