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
    static func firstExample(_ name: String) throws -> (inputs: [String: Any], outputs: [String: Any]) {
        let url = Fixtures.directory.deletingLastPathComponent().appendingPathComponent("classic/classic.json")
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let cases = try #require(manifest["cases"] as? [[String: Any]])
        let entry = try #require(cases.first { $0["name"] as? String == name })
        let example = try #require((entry["examples"] as? [[String: [String: Any]]])?.first)
        return (try #require(example["inputs"]), try #require(example["outputs"]))
    }

    @Test func aPipelineOfNumberInputsPredictsThroughItsTypedClass() throws {
        let example = try Self.firstExample("pipeline_impute_scale_svr_diabetes")
        let x = (0..<10).map { (example.inputs["x\($0)"] as! NSNumber).doubleValue }
        let model = try DiabetesSVR(configuration: MLModelConfiguration())
        let output = try model.prediction(x0: x[0], x1: x[1], x2: x[2], x3: x[3], x4: x[4], x5: x[5], x6: x[6], x7: x[7], x8: x[8], x9: x[9])
        let expected = (example.outputs["target"] as! NSNumber).doubleValue
        #expect(abs(output.target - expected) <= 1e-5 * abs(expected), "\(output.target) vs scikit-learn's \(expected)")
    }
}
