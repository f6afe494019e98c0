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

    /// `--profile`: every layer type's time (depthwise and pointwise convolutions apart), their
    /// shares summing to one, and a clear error for a model that is not a neural network.
    @Test func profileShowsWhereTheTimeGoes() throws {
        // The bundled feature extractor: EfficientNet-Lite0's first blocks.
        let model = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/OpenCreateML/Resources/EfficientNetLite0Features.mlmodel").path
        let result = try CommandRunner.run(["bench", "predict", model, "--iterations", "2", "--threads", "1", "--profile", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        let rows = try #require(report["profile"] as? [[String: Any]])
        let types = rows.filter { ($0["layer"] as? String) == "" }
        #expect(types.contains { $0["type"] as? String == "depthwise convolution" } && types.contains { $0["type"] as? String == "pointwise convolution" })
        let shares = types.compactMap { $0["share"] as? Double }
        #expect(abs(shares.reduce(0, +) - 1) < 1e-9 && shares.allSatisfy { $0 >= 0 })
        #expect(rows.contains { ($0["layer"] as? String)?.isEmpty == false }, "the slowest layers follow")
        let pipeline = try CommandRunner.run(["bench", "predict", Self.codeGenModels.appendingPathComponent("PipelineKNN.mlmodel").path,
                                              "--iterations", "1", "--profile"])
        #expect(pipeline.status == 1 && pipeline.stderr.contains("only neural networks and ML Programs can be profiled"), "\(pipeline.stderr)")
    }

    /// An ML Program's profile: its steps by operation type (a convolution and the activation fused
    /// into it as one), and the most bytes its tensors held at once.
    @Test func profileOfAnMLProgram() throws {
        let model = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/mlprogram/TorchDecoder.mlpackage").path
        let result = try CommandRunner.run(["bench", "predict", model, "--iterations", "2", "--threads", "1", "--profile", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        let rows = try #require(report["profile"] as? [[String: Any]])
        let types = Set(rows.filter { ($0["layer"] as? String) == "" }.compactMap { $0["type"] as? String })
        #expect(types.contains("conv_transpose") && types.contains("crop"), "\(types)")
        let shares = rows.filter { ($0["layer"] as? String) == "" }.compactMap { $0["share"] as? Double }
        #expect(abs(shares.reduce(0, +) - 1) < 1e-9)
        // The input alone is 1×8×5×5 floats; the decoder's outputs are larger.
        let peak = try #require(report["peak_tensor_bytes"] as? Int)
        #expect(peak > 8 * 25 * 4, "\(peak)")
    }

    @Test func badInputFailsWithOneLine() throws {
        let missing = try CommandRunner.run(["bench", "predict", "/nonexistent/model.mlmodel"])
        #expect(missing.status == 1 && missing.stderr.hasPrefix("error: ") && missing.stderr.contains("model.mlmodel"))
        let zero = try CommandRunner.run(["bench", "predict", Fixtures.url("classifier_sgd.mlmodel").path, "--batch", "0"])
        #expect(zero.status == 2 && zero.stderr.contains("--batch must be at least 1"))
    }
}
