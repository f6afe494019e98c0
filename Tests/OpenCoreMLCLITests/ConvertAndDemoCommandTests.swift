import CoreMLSpec
import Foundation
import Testing
import _OpenCoreMLTestSupport

struct ConvertAndDemoCommandTests {
    @Test func convertCompilesAndBack() throws {
        try withTemporaryDirectory { folder in
            let source = Fixtures.url("classifier_sgd.mlmodel")
            let compiled = folder.appendingPathComponent("Classifier.mlmodelc")
            let back = folder.appendingPathComponent("back.mlmodel")
            let compiling = try CommandRunner.run(["convert", source.path, compiled.path])
            let exporting = try CommandRunner.run(["convert", compiled.path, back.path])
            #expect(compiling.status == 0 && exporting.status == 0)
            let original = try Data(contentsOf: source)
            let roundTripped = try Data(contentsOf: back)
            #expect(roundTripped == original)
        }
    }

    @Test func demoBuildsTrainsAndSavesLeNet() throws {
        try withTemporaryDirectory { folder in
            let result = try CommandRunner.run(["demo", "--output", folder.path, "--epochs", "1", "--examples", "256", "--test-examples", "64"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("Total parameters: 585,958"))
            #expect(result.stdout.contains("Test accuracy:"))
            // The trained model differs from the built one and loads.
            let trained = try CoreML_Specification_Model(contentsOf: folder.appendingPathComponent("LeNet-trained.mlmodel"))
            #expect(trained.validationIssues().isEmpty)
            #expect(try Data(contentsOf: folder.appendingPathComponent("LeNet-trained.mlmodel")) != Data(contentsOf: folder.appendingPathComponent("LeNet.mlmodel")))
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("loss.svg").path))
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("confusion.svg").path))
            let model = try CoreML_Specification_Model(contentsOf: folder.appendingPathComponent("LeNet.mlmodel"))
            #expect(model.validationIssues().isEmpty)
            #expect(model.neuralNetwork.layers.count == 11)
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("LeNet.mlmodelc/model.mlmodel").path))
        }
    }
}

struct BenchCommandTests {
    /// The benchmark runs and reports every shape; timings are not asserted (they are benchmarks).
    @Test func gemmReportsEveryShape() throws {
        let result = try CommandRunner.run(["bench", "gemm", "--json", "--threads", "1", "--seconds", "0.01"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(json["threads"] as? Int == 1)
        let results = try #require(json["results"] as? [[String: Any]])
        #expect(results.count == 5)
        #expect(results.allSatisfy { ($0["gflops"] as? Double ?? 0) > 0 })
        #expect(try CommandRunner.run(["bench", "gemm", "--threads", "0"]).status == 2)
        // The EfficientNet set is not run here: its products take minutes in a debug build.
        #expect(try CommandRunner.run(["bench", "gemm", "--shapes", "resnet"]).status == 2)
    }
}
