import CoreMLSpec
import Foundation
import Testing
import _OpenCoreMLTestSupport

/// `opencoreml tabular train | evaluate` on made-up tables written as CSV, and bad input: one line
/// naming what and where, a non-zero exit, no model written.
@Suite("tabular command", .serialized)
struct TabularCommandTests {
    /// `rows` rows of x1, x2 (uniform in [-1, 1)), color (red/green/blue) and two targets:
    /// `label` is "yes" when x1 + x2 > 0 flipped for blue rows (so the categorical column matters),
    /// else "no"; `y` = 3·x1 − 2·x2 + (blue ? 1 : 0), exactly.
    static func csv(rows: Int, seed: UInt64) -> String {
        var random = TestRandom(seed: seed)
        var lines = ["x1,x2,color,label,y"]
        let colors = ["red", "green", "blue"]
        for _ in 0..<rows {
            let x1 = Double(random.float()), x2 = Double(random.float())
            let color = colors[random.int(0..<3)]
            let positive = (x1 + x2 > 0) != (color == "blue")
            let y = 3 * x1 - 2 * x2 + (color == "blue" ? 1 : 0)
            lines.append(String(format: "%.6f,%.6f,%@,%@,%.6f", x1, x2, color, positive ? "yes" : "no", y))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func write(_ text: String, _ name: String, in folder: URL) throws -> String {
        let url = folder.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    private func expectFailure(_ arguments: [String], status: Int32 = 1, mentioning texts: [String], output: URL?,
                               sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try CommandRunner.run(arguments)
        #expect(result.status == status, "\(result.stderr)", sourceLocation: sourceLocation)
        if status == 1 {
            #expect(result.stderr.hasPrefix("error: ") && result.stderr.split(separator: "\n").count == 1, "\(result.stderr)", sourceLocation: sourceLocation)
        }
        for text in texts { #expect(result.stderr.contains(text), "\(result.stderr)", sourceLocation: sourceLocation) }
        if let output { #expect(!FileManager.default.fileExists(atPath: output.path), sourceLocation: sourceLocation) }
    }

    private func json(_ text: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func boostedTreeClassifierTrainsWritesAndEvaluates() throws {
        try withTemporaryDirectory { folder in
            let train = try write(Self.csv(rows: 600, seed: 1), "train.csv", in: folder)
            let test = try write(Self.csv(rows: 200, seed: 2), "test.csv", in: folder)
            let model = folder.appendingPathComponent("Label.mlmodel"), log = folder.appendingPathComponent("log.jsonl")
            let trained = try CommandRunner.run([
                "tabular", "train", train, "--target", "label", "--features", "x1,x2,color", "--validation", "0.2",
                "--max-iterations", "30", "--max-depth", "4", "--output", model.path, "--log", log.path, "--metadata-author", "Tabular Test"])
            #expect(trained.status == 0, "\(trained.stderr)")
            #expect(trained.stdout.contains("boosted-tree classifier of 'label': 2 classes, 3 features"), "\(trained.stdout)")
            #expect(trained.stdout.contains("validation accuracy"), "\(trained.stdout)")
            #expect(trained.stdout.contains("fit time"), "\(trained.stdout)")
            #expect(trained.stdout.contains("600 rows × 5 columns"), "\(trained.stdout)")

            // One line per iteration (30: no early stopping), then the summary, whose counts add up to the file's rows.
            let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map { try json(String($0)) }
            #expect(lines.count == 31)
            #expect(lines.first?["iteration"] as? Int == 1 && lines[29]["iteration"] as? Int == 30)
            #expect(lines[0]["trainingAccuracy"] is Double && lines[0]["validationAccuracy"] is Double)
            let summary = try #require(lines.last)
            #expect((summary["trainingRows"] as? Int ?? 0) + (summary["validationRows"] as? Int ?? 0) == 600)
            #expect((summary["validationRows"] as? Int ?? 0) > 0)
            #expect((summary["fitSeconds"] as? Double).map { $0 > 0 } == true, "\(summary)")

            let specification = try CoreML_Specification_Model(contentsOf: model)
            #expect(specification.description_p.metadata.author == "Tabular Test")
            #expect(Set(specification.description_p.input.map(\.name)) == ["x1", "x2", "color"])

            // The rule is learnable: x1 + x2 > 0, flipped for blue.
            let evaluated = try CommandRunner.run(["tabular", "evaluate", model.path, test, "--target", "label", "--json"])
            #expect(evaluated.status == 0, "\(evaluated.stderr)")
            let report = try json(evaluated.stdout)
            #expect(report["examples"] as? Int == 200)
            #expect((report["accuracy"] as? Double ?? 0) > 0.9, "\(evaluated.stdout)")

            let text = try CommandRunner.run(["tabular", "evaluate", model.path, test, "--target", "label"])
            #expect(text.status == 0, "\(text.stderr)")
            for part in ["200 rows", "precision", "recall", "F1", "confusion matrix", "yes", "no"] {
                #expect(text.stdout.contains(part), "\(text.stdout)")
            }
        }
    }

    @Test func regressorsTrainAndEvaluate() throws {
        try withTemporaryDirectory { folder in
            let train = try write(Self.csv(rows: 800, seed: 3), "train.csv", in: folder)
            let test = try write(Self.csv(rows: 200, seed: 4), "test.csv", in: folder)
            // y is Double: regression without --task. y = 3·x1 − 2·x2 + [blue] has a standard
            // deviation near 2.2 (Var = 9/3 + 4/3 + 2/9); 60 rounds of depth-4 trees get well under 0.5.
            let boosted = folder.appendingPathComponent("Boosted.mlmodel")
            let trained = try CommandRunner.run(["tabular", "train", train, "--target", "y", "--features", "x1,x2,color",
                                                 "--max-iterations", "60", "--max-depth", "4", "--validation", "none", "--output", boosted.path])
            #expect(trained.status == 0, "\(trained.stderr)")
            #expect(trained.stdout.contains("boosted-tree regressor of 'y': 3 features"), "\(trained.stdout)")
            #expect(trained.stdout.contains("training RMSE"), "\(trained.stdout)")
            let evaluated = try CommandRunner.run(["tabular", "evaluate", boosted.path, test, "--target", "y", "--json"])
            #expect(evaluated.status == 0, "\(evaluated.stderr)")
            let report = try json(evaluated.stdout)
            #expect(report["exampleCount"] as? Int == 200)
            #expect((report["rootMeanSquaredError"] as? Double ?? 1) < 0.5, "\(evaluated.stdout)")
            #expect((report["maximumError"] as? Double ?? 0) >= (report["rootMeanSquaredError"] as? Double ?? 1))

            // y is linear in x1, x2 and the one-hot color: the linear regressor fits it almost exactly.
            let linear = folder.appendingPathComponent("Linear.mlmodel")
            let fitted = try CommandRunner.run(["tabular", "train", train, "--target", "y", "--features", "x1,x2,color", "--algorithm", "linear",
                                                "--max-iterations", "100", "--l2", "0", "--validation", "none", "--output", linear.path])
            #expect(fitted.status == 0, "\(fitted.stderr)")
            let text = try CommandRunner.run(["tabular", "evaluate", linear.path, test, "--target", "y"])
            #expect(text.status == 0, "\(text.stderr)")
            #expect(text.stdout.contains("root-mean-square error") && text.stdout.contains("maximum error"), "\(text.stdout)")
            let linearReport = try json(try CommandRunner.run(["tabular", "evaluate", linear.path, test, "--target", "y", "--json"]).stdout)
            #expect((linearReport["rootMeanSquaredError"] as? Double ?? 1) < 0.05, "\(linearReport)")
        }
    }

    @Test func taskIsInferredFromTheTarget() throws {
        try withTemporaryDirectory { folder in
            // An Int target with 3 values is classified; with 50 it is regressed; --task overrides.
            var random = TestRandom(seed: 7)
            var few = ["a,b,k"], many = ["a,b,k"]
            for _ in 0..<120 {
                let a = random.float(), b = random.float()
                few.append(String(format: "%.4f,%.4f,%d", a, b, a > 0.3 ? 2 : a > -0.3 ? 1 : 0))
                many.append(String(format: "%.4f,%.4f,%d", a, b, Int((a + 1) * 25)))
            }
            let fewPath = try write(few.joined(separator: "\n"), "few.csv", in: folder)
            let manyPath = try write(many.joined(separator: "\n"), "many.csv", in: folder)
            let output = folder.appendingPathComponent("m.mlmodel").path
            let classified = try CommandRunner.run(["tabular", "train", fewPath, "--target", "k", "--algorithm", "decision-tree", "--output", output])
            #expect(classified.status == 0, "\(classified.stderr)")
            #expect(classified.stdout.contains("decision-tree classifier of 'k': 3 classes"), "\(classified.stdout)")
            let regressed = try CommandRunner.run(["tabular", "train", manyPath, "--target", "k", "--algorithm", "decision-tree", "--output", output])
            #expect(regressed.status == 0, "\(regressed.stderr)")
            #expect(regressed.stdout.contains("decision-tree regressor of 'k'"), "\(regressed.stdout)")
            let forced = try CommandRunner.run(["tabular", "train", fewPath, "--target", "k", "--algorithm", "random-forest", "--task", "regression",
                                                "--max-iterations", "5", "--output", output])
            #expect(forced.status == 0, "\(forced.stderr)")
            #expect(forced.stdout.contains("random-forest regressor of 'k'"), "\(forced.stdout)")
        }
    }

    /// A missing Int value reaches the model as a missing feature (the tree's learned direction), not
    /// as 0: "a" when x is missing or at least 50, "b" for 1…49, so a missing x read as 0 would go
    /// with the small values and be labelled "b".
    @Test func evaluateLeavesMissingIntegersOut() throws {
        try withTemporaryDirectory { folder in
            var text = "x,label\n"
            for row in 0..<240 {
                let x = row % 3 == 0 ? nil : 1 + (row * 7) % 98
                text += "\(x.map(String.init) ?? ""),\(x.map { $0 >= 50 ? "a" : "b" } ?? "a")\n"
            }
            let data = try write(text, "ints.csv", in: folder)
            let model = folder.appendingPathComponent("ints.mlmodel")
            let trained = try CommandRunner.run(["tabular", "train", data, "--target", "label", "--algorithm", "decision-tree",
                                                 "--validation", "none", "--output", model.path])
            #expect(trained.status == 0, "\(trained.stderr)")
            let evaluated = try CommandRunner.run(["tabular", "evaluate", model.path, data, "--target", "label", "--json"])
            #expect(evaluated.status == 0, "\(evaluated.stderr)")
            #expect(try json(evaluated.stdout)["accuracy"] as? Double == 1, "\(evaluated.stdout)")
        }
    }

    @Test func badInputFailsWithOneLineAndWritesNothing() throws {
        try withTemporaryDirectory { folder in
            let output = folder.appendingPathComponent("out.mlmodel")
            let good = try write(Self.csv(rows: 60, seed: 5), "good.csv", in: folder)
            func train(_ path: String, _ extra: [String]) -> [String] {
                ["tabular", "train", path, "--output", output.path] + extra
            }
            // A target column the file does not have.
            try expectFailure(train(good, ["--target", "price"]), mentioning: ["good.csv", "no target column 'price'", "x1, x2, color, label, y"], output: output)
            // A feature column the file does not have.
            try expectFailure(train(good, ["--target", "label", "--features", "x1,size"]), mentioning: ["good.csv", "no feature column 'size'"], output: output)
            // An algorithm there is not: a usage error (exit 2).
            try expectFailure(train(good, ["--target", "label", "--algorithm", "xgboost"]), status: 2, mentioning: ["xgboost"], output: output)
            // An option the algorithm does not use, and a task it cannot do.
            try expectFailure(train(good, ["--target", "y", "--algorithm", "linear", "--max-depth", "3"]), status: 2,
                              mentioning: ["--max-depth does not apply to --algorithm linear"], output: output)
            try expectFailure(train(good, ["--target", "label", "--algorithm", "linear", "--task", "classification"]), status: 2,
                              mentioning: ["linear is a regressor"], output: output)
            try expectFailure(train(good, ["--target", "label", "--validation", "1.5"]), status: 2, mentioning: ["between 0 and 1"], output: output)
            try expectFailure(train(good, ["--target", "label", "--algorithm", "auto", "--seed", "3"]), status: 2,
                              mentioning: ["do not apply to --algorithm auto"], output: output)

            // A row with a field too few, on line 6 of the file.
            var lines = Self.csv(rows: 60, seed: 5).split(separator: "\n").map(String.init)
            lines[5] = lines[5].split(separator: ",").dropLast().joined(separator: ",")
            let short = try write(lines.joined(separator: "\n"), "short.csv", in: folder)
            try expectFailure(train(short, ["--target", "label"]), mentioning: ["short.csv", "line 6", "fields"], output: output)

            // A missing target value, on line 9.
            lines = Self.csv(rows: 60, seed: 5).split(separator: "\n").map(String.init)
            var fields = lines[8].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            fields[3] = ""
            lines[8] = fields.joined(separator: ",")
            let missing = try write(lines.joined(separator: "\n"), "missing.csv", in: folder)
            try expectFailure(train(missing, ["--target", "label"]), mentioning: ["missing.csv:9", "label"], output: output)

            // A validation file without the target column.
            let other = try write("x1,x2,color\n0.1,0.2,red\n", "other.csv", in: folder)
            try expectFailure(train(good, ["--target", "label", "--validation", other]), mentioning: ["other.csv", "no validation column"], output: output)

            // Evaluation: a target column the file does not have; a regressor on text labels.
            let model = folder.appendingPathComponent("m.mlmodel")
            let trained = try CommandRunner.run(["tabular", "train", good, "--target", "y", "--validation", "none", "--output", model.path])
            #expect(trained.status == 0, "\(trained.stderr)")
            try expectFailure(["tabular", "evaluate", model.path, good, "--target", "price"], mentioning: ["good.csv", "no target column 'price'"], output: nil)
            try expectFailure(["tabular", "evaluate", model.path, good, "--target", "label"], mentioning: ["good.csv", "column 'label' holds text"], output: nil)
        }
    }
}
