import CoreMLSpec
import Foundation
import Testing
import _OpenCoreMLTestSupport

/// Outputs are checked before work starts, memory is bounded, absurd labels are refused: one error
/// line, exit code 1, nothing written or replaced.
struct UntrustedInputCommandTests {
    private func expectOneLineFailure(_ arguments: [String], mentioning text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try CommandRunner.run(arguments)
        #expect(result.status == 1, "\(result.stderr)", sourceLocation: sourceLocation)
        let lines = result.stderr.split(separator: "\n").filter { !$0.hasPrefix("Training on") && !$0.hasPrefix("Adding") }
        #expect(lines.count == 1, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains(text), "\(result.stderr)", sourceLocation: sourceLocation)
    }

    /// The iris-like CSV the `classifier_sgd` fixture trains on: label first, four values.
    private func writeCSV(_ rows: [[Double]], to url: URL) throws {
        try rows.map { $0.map { $0 == $0.rounded() ? String(Int($0)) : String($0) }.joined(separator: ",") }.joined(separator: "\n")
            .write(to: url, atomically: true, encoding: .utf8)
    }

    @Test func aBadChartPathFailsBeforeTrainingAndLeavesTheOutputAlone() throws {
        try withTemporaryDirectory { folder in
            let data = folder.appendingPathComponent("data.csv")
            try writeCSV((0..<30).map { [Double($0 % 3), Double($0 % 3), 1, 0.5, -1] }, to: data)
            let output = folder.appendingPathComponent("Out.mlmodel")
            try Data("previous".utf8).write(to: output)
            try expectOneLineFailure(["train", Fixtures.url("classifier_sgd.mlmodel").path, "--data", data.path, "--scale", "1",
                                      "--output", output.path, "--loss-curve", folder.appendingPathComponent("missing/x.svg").path],
                                     mentioning: "missing/x.svg: the folder")
            #expect(try String(contentsOf: output, encoding: .utf8) == "previous")
            try expectOneLineFailure(["train", Fixtures.url("classifier_sgd.mlmodel").path, "--data", data.path, "--scale", "1",
                                      "--output", folder.appendingPathComponent("nowhere/Out.mlmodel").path], mentioning: "does not exist")
        }
    }

    @Test func theMemoryLimitOptionBoundsPredictionAndTraining() throws {
        try withTemporaryDirectory { folder in
            let image = folder.appendingPathComponent("image.json")
            try "[\((0..<784).map { _ in "0" }.joined(separator: ","))]".write(to: image, atomically: true, encoding: .utf8)
            let lenet = Fixtures.url("lenet_updatable.mlmodel").path
            try expectOneLineFailure(["predict", lenet, "--input", "image=\(image.path)", "--memory-limit", "0.00001"],
                                     mentioning: "more than the memory limit of 10.0 kB")
            let ok = try CommandRunner.run(["predict", lenet, "--input", "image=\(image.path)", "--memory-limit", "1"])
            #expect(ok.status == 0, "\(ok.stderr)")
            let usage = try CommandRunner.run(["predict", lenet, "--input", "image=\(image.path)", "--memory-limit", "-1"])
            #expect(usage.status == 2)
        }
    }

    @Test func aBillionAsALabelIsRefused() throws {
        try withTemporaryDirectory { folder in
            let data = folder.appendingPathComponent("labels.csv")
            try writeCSV([[0, 1, 2, 3, 4], [999_999_999, 1, 2, 3, 4]], to: data)
            let output = folder.appendingPathComponent("Out.mlmodel")
            try expectOneLineFailure(["train", Fixtures.url("knn_empty_string.mlmodel").path, "--data", data.path, "--scale", "1",
                                      "--output", output.path], mentioning: "line 2, column 1")
            #expect(!FileManager.default.fileExists(atPath: output.path))
        }
    }
}
