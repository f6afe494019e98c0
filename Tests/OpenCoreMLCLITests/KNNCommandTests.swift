import CoreMLSpec
import Foundation
import Testing
import _OpenCoreMLTestSupport

/// `opencoreml train` on k-NN models and `opencoreml knn remove`, through the real executable.
@Suite("k-NN commands")
struct KNNCommandTests {
    /// 30 rows of 8 values around 0, 2 and 4 for classes 0, 1, 2.
    static func writeCSV(to url: URL) throws {
        var random = TestRandom(seed: 8)
        let lines = (0..<30).map { row -> String in
            let label = row % 3
            return ([String(label)] + (0..<8).map { _ in String(Float(label * 2) + random.float(-0.4, 0.4)) }).joined(separator: ",")
        }
        try lines.joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8)
    }

    @Test func trainAppendsExamplesAndRemoveDropsThemAgain() throws {
        try withTemporaryDirectory { folder in
            let csv = folder.appendingPathComponent("data.csv")
            try Self.writeCSV(to: csv)
            let trained = folder.appendingPathComponent("personal.mlmodel")
            let train = try CommandRunner.run([
                "train", Fixtures.url("knn_empty_string.mlmodel").path, "--data", csv.path, "--scale", "1",
                "--class-names", "✊,✋,✌️", "--output", trained.path,
            ])
            #expect(train.status == 0, "\(train.stderr)")
            #expect(train.stdout.contains("✋") && train.stdout.contains("30 samples"))
            let spec = try CoreML_Specification_Model(contentsOf: trained)
            #expect(spec.kNearestNeighborsClassifier.stringClassLabels.vector.count == 30)
            #expect(Set(spec.kNearestNeighborsClassifier.stringClassLabels.vector) == ["✊", "✋", "✌️"])

            let evaluate = try CommandRunner.run(["evaluate", trained.path, "--data", csv.path, "--scale", "1", "--class-names", "✊,✋,✌️"])
            #expect(evaluate.status == 0 && evaluate.stdout.contains("accuracy 100.00%"), "\(evaluate.stdout)\(evaluate.stderr)")

            let edited = folder.appendingPathComponent("edited.mlmodel")
            let remove = try CommandRunner.run(["knn", "remove", trained.path, "--label", "✋", "--index", "0,3-5", "--output", edited.path])
            #expect(remove.status == 0, "\(remove.stderr)")
            let left = try CoreML_Specification_Model(contentsOf: edited).kNearestNeighborsClassifier
            // Indices 0, 3 (class 0) and 4, 5 (classes 1, 2), then every remaining ✋.
            #expect(left.stringClassLabels.vector.count == 30 - 10 - 3)
            #expect(!left.stringClassLabels.vector.contains("✋"))
            #expect(left.nearestNeighborsIndex.floatSamples.count == 17)
        }
    }

    @Test func badSamplesNamesFailWithoutWritingTheOutput() throws {
        try withTemporaryDirectory { folder in
            let output = folder.appendingPathComponent("out.mlmodel")
            for (arguments, text) in [
                (["--label", "durian"], "durian"),
                (["--index", "12"], "12"),
                (["--index", "4-2"], "4-2"),
            ] {
                let result = try CommandRunner.run(["knn", "remove", Fixtures.url("knn_linear_string.mlmodel").path] + arguments + ["--output", output.path])
                #expect(result.status == 1 && result.stderr.hasPrefix("error: ") && result.stderr.contains(text), "\(result.stderr)")
                #expect(!FileManager.default.fileExists(atPath: output.path))
            }
            let notKNN = try CommandRunner.run(["knn", "remove", Fixtures.url("lenet_updatable.mlmodel").path, "--index", "0", "--output", output.path])
            #expect(notKNN.status == 1 && notKNN.stderr.contains("not a k-NN"))
            let nothing = try CommandRunner.run(["knn", "remove", Fixtures.url("knn_linear_string.mlmodel").path, "--output", output.path])
            #expect(nothing.status == 2 && nothing.stderr.contains("--label or --index"))
        }
    }
}
