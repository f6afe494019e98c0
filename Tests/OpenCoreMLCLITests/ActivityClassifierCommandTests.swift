import CoreMLSpec
import Foundation
import Testing
import _OpenCoreMLTestSupport

/// `opencoreml activity-classifier train | evaluate | predict` on made-up recordings written as CSV
/// (shuffled rows, sorted back by the time column), and bad input: one line naming the file, the
/// line and the column; exit 1; no model written.
@Suite("activity-classifier command", .serialized)
struct ActivityClassifierCommandTests {
    static let header = "session,time,ax,ay,activity"

    /// `sessions` recordings of 120 samples: "still" is small noise, "swing" a sine on both axes;
    /// each session changes activity once. Rows are written in a scrambled order.
    static func csv(sessions: Int, seed: UInt64) -> String {
        var generator = SplitMix64(seed: seed)
        var rows: [String] = []
        for session in 0..<sessions {
            let change = Int.random(in: 30..<90, using: &generator)
            let swingFirst = Bool.random(using: &generator)
            for t in 0..<120 {
                let swing = (t < change) == swingFirst
                let noise = { Double.random(in: -0.1...0.1, using: &generator) }
                let x = swing ? sin(Double(t) * 1.3) : 0
                rows.append(String(format: "r%02d,%.2f,%.4f,%.4f,%@", session, Double(t) / 10, x + noise(), x * 0.5 + noise(), swing ? "swing" : "still"))
            }
        }
        rows.shuffle(using: &generator)
        return ([header] + rows).joined(separator: "\n") + "\n"
    }

    private func expectFailure(_ arguments: [String], mentioning texts: [String], output: URL?, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try CommandRunner.run(arguments)
        #expect(result.status == 1, sourceLocation: sourceLocation)
        #expect(result.stderr.hasPrefix("error: ") && result.stderr.split(separator: "\n").count == 1, "\(result.stderr)", sourceLocation: sourceLocation)
        for text in texts { #expect(result.stderr.contains(text), "\(result.stderr)", sourceLocation: sourceLocation) }
        if let output { #expect(!FileManager.default.fileExists(atPath: output.path), sourceLocation: sourceLocation) }
    }

    @Test func trainEvaluateAndPredictFromCSV() throws {
        try withTemporaryDirectory { folder in
            let train = folder.appendingPathComponent("train.csv"), test = folder.appendingPathComponent("test.csv")
            try Self.csv(sessions: 16, seed: 1).write(to: train, atomically: true, encoding: .utf8)
            try Self.csv(sessions: 4, seed: 2).write(to: test, atomically: true, encoding: .utf8)
            let model = folder.appendingPathComponent("Swing.mlmodel"), curve = folder.appendingPathComponent("loss.png")
            let trained = try CommandRunner.run([
                "activity-classifier", "train", train.path, "--features", "ax,ay", "--label-column", "activity", "--session-column", "session",
                "--time-column", "time", "--prediction-window", "6", "--max-iterations", "8", "--batch-size", "4",
                "--validation-fraction", "0.25", "--output", model.path, "--loss-curve", curve.path])
            #expect(trained.status == 0, "\(trained.stderr)")
            #expect(trained.stdout.contains("2 activities: still swing"))
            #expect(trained.stdout.contains("12 training sessions, 4 validation sessions"))
            #expect(trained.stdout.contains("validation accuracy per row"))
            #expect(try Data(contentsOf: curve).prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
            let specification = try CoreML_Specification_Model(contentsOf: model)
            #expect(specification.description_p.metadata.userDefined["features"] == "ax,ay")
            #expect(specification.description_p.input[0].type.multiArrayType.shape == [1, 6, 2])

            let evaluated = try CommandRunner.run(["activity-classifier", "evaluate", model.path, test.path, "--label-column", "activity",
                                                   "--session-column", "session", "--time-column", "time", "--json"])
            #expect(evaluated.status == 0, "\(evaluated.stderr)")
            let report = try JSONSerialization.jsonObject(with: Data(evaluated.stdout.utf8)) as! [String: Any]
            let perRow = report["perRow"] as! [String: Any], perWindow = report["perWindow"] as! [String: Any]
            #expect(perRow["examples"] as? Int == 4 * 120)
            #expect(perWindow["examples"] as? Int == 4 * 20)
            #expect((perRow["accuracy"] as! Double) > 0.85, "\(evaluated.stdout)")

            let predicted = try CommandRunner.run(["activity-classifier", "predict", model.path, test.path, "--session-column", "session",
                                                   "--time-column", "time", "--json"])
            #expect(predicted.status == 0, "\(predicted.stderr)")
            let lines = predicted.stdout.split(separator: "\n")
            #expect(lines.count == 4 * 20)
            let first = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as! [String: Any]
            #expect(first["rows"] as? Int == 6 && first["window"] as? Int == 0)
            #expect(["still", "swing"].contains(first["label"] as? String))
        }
    }

    @Test func badRecordingsFailWithOneLineNamingFileLineAndColumn() throws {
        try withTemporaryDirectory { folder in
            let output = folder.appendingPathComponent("out.mlmodel")
            func write(_ name: String, _ text: String) throws -> String {
                let url = folder.appendingPathComponent(name)
                try text.write(to: url, atomically: true, encoding: .utf8)
                return url.path
            }
            var lines = Self.csv(sessions: 3, seed: 5).split(separator: "\n").map(String.init)
            func train(_ path: String, _ extra: [String] = []) -> [String] {
                ["activity-classifier", "train", path, "--features", "ax,ay", "--label-column", "activity", "--session-column", "session",
                 "--prediction-window", "6", "--max-iterations", "1", "--output", output.path] + extra
            }
            let good = try write("good.csv", lines.joined(separator: "\n"))
            try expectFailure(train(good, ["--features", "ax,gyro"]), mentioning: ["good.csv", "no column 'gyro'"], output: output)

            var fields = lines[7].split(separator: ",").map(String.init)
            fields[3] = "fast"
            lines[7] = fields.joined(separator: ",")
            let text = try write("text.csv", lines.joined(separator: "\n"))
            try expectFailure(train(text), mentioning: ["text.csv:8", "column 'ay'", "'fast' is not a number"], output: output)

            fields[3] = "nan"
            lines[7] = fields.joined(separator: ",")
            let nan = try write("nan.csv", lines.joined(separator: "\n"))
            try expectFailure(train(nan), mentioning: ["nan.csv:8", "column 'ay'", "not a finite number"], output: output)

            let short = try write("short.csv", ([Self.header] + ["r00,0,0.1,0.2,still", "r00,0.1,0.1,0.2,swing", "r01,0,0.1,0.2,still"]).joined(separator: "\n"))
            try expectFailure(train(short), mentioning: ["short.csv:2", "fewer than one prediction window"], output: output)

            try expectFailure(train(good, ["--prediction-window", "0"]), mentioning: ["predictionWindowSize", "at least 1"], output: output)

            // Evaluation: an activity the model does not know, and a missing label column.
            let model = folder.appendingPathComponent("m.mlmodel")
            let trained = try CommandRunner.run(train(good, ["--output", model.path]))
            #expect(trained.status == 0, "\(trained.stderr)")
            var unknown = Self.csv(sessions: 1, seed: 9).split(separator: "\n").map(String.init)
            unknown[5] = unknown[5].replacingOccurrences(of: "still", with: "juggle").replacingOccurrences(of: "swing", with: "juggle")
            let unknownPath = try write("unknown.csv", unknown.joined(separator: "\n"))
            try expectFailure(["activity-classifier", "evaluate", model.path, unknownPath, "--label-column", "activity", "--session-column", "session"],
                              mentioning: ["unknown.csv:6", "'juggle' is not one the model knows"], output: nil)
            try expectFailure(["activity-classifier", "evaluate", model.path, good, "--label-column", "kind", "--session-column", "session"],
                              mentioning: ["good.csv", "no column 'kind'"], output: nil)
            try expectFailure(["activity-classifier", "predict", Fixtures.url("knn_linear_string.mlmodel").path, good],
                              mentioning: ["not an activity classifier"], output: nil)
        }
    }
}
