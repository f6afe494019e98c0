import Foundation
import Testing
import _OpenCoreMLTestSupport

/// `opencoreml bench predict MODEL`: made-up inputs of the declared shapes (a multi-array model, an
/// image model, a model with optional inputs), the JSON keys, and bad input.
struct BenchPredictCommandTests {
    static let codeGenModels = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("OpenCoreMLCodeGenTests/Models")

    @Test(arguments: [Fixtures.url("classifier_sgd.mlmodel").path, codeGenModels.appendingPathComponent("HealthySnacks.mlmodel").path,
                      codeGenModels.appendingPathComponent("GestureClassifier.mlmodel").path])
    func timesAnyModelOnMadeUpInputs(model: String) throws {
        let result = try CommandRunner.run(["bench", "predict", model, "--batch", "3", "--iterations", "4", "--threads", "1", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        let latency = try #require(report["latency_ms"] as? Double), throughput = try #require(report["throughput"] as? Double)
        #expect(latency > 0 && throughput > 0)
        #expect(abs(throughput - 3 / (latency / 1000)) < 1e-6 * throughput)
        #expect(report["batch"] as? Int == 3 && report["threads"] as? Int == 1)
    }

    @Test func badInputFailsWithOneLine() throws {
        let missing = try CommandRunner.run(["bench", "predict", "/nonexistent/model.mlmodel"])
        #expect(missing.status == 1 && missing.stderr.hasPrefix("error: ") && missing.stderr.contains("model.mlmodel"))
        let zero = try CommandRunner.run(["bench", "predict", Fixtures.url("classifier_sgd.mlmodel").path, "--batch", "0"])
        #expect(zero.status == 2 && zero.stderr.contains("--batch must be at least 1"))
    }
}
