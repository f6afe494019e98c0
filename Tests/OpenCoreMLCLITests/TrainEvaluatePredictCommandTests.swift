import CoreMLSpec
import Foundation
import Testing
import _OpenCoreMLTestSupport

/// `train`, `evaluate` and `predict` through the real executable, with data the tests write.
@Suite("train / evaluate / predict commands")
struct TrainEvaluatePredictCommandTests {
    static let classifier = Fixtures.url("classifier_sgd.mlmodel").path
    static let centers: [[Float]] = [[1.5, -1, 0.5, 0], [-1.5, 1, 0, 0.5], [0, 0, -1.5, -1.5]]

    /// A CSV of `count` rows `label,f1,f2,f3,f4` around three centres (classes 0, 1, 2).
    static func writeCSV(_ url: URL, count: Int, seed: UInt64, header: Bool = true) throws {
        var random = TestRandom(seed: seed)
        var lines = header ? ["label,a,b,c,d"] : []
        for index in 0..<count {
            let label = index % 3
            lines.append(([String(label)] + centers[label].map { String($0 + random.float(-0.6, 0.6)) }).joined(separator: ","))
        }
        try lines.joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8)
    }

    @Test func trainWritesTheModelALogAndAChartThenEvaluateScoresIt() throws {
        try withTemporaryDirectory { folder in
            let train = folder.appendingPathComponent("train.csv"), test = folder.appendingPathComponent("test.csv")
            try Self.writeCSV(train, count: 120, seed: 1)
            try Self.writeCSV(test, count: 60, seed: 2)
            let output = folder.appendingPathComponent("trained.mlmodel").path
            let log = folder.appendingPathComponent("log.jsonl").path
            let curve = folder.appendingPathComponent("loss.svg").path
            let result = try CommandRunner.run([
                "train", Self.classifier, "--data", train.path, "--scale", "1", "--output", output, "--epochs", "10",
                "--learning-rate", "0.05", "--log", log, "--loss-curve", curve,
            ])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!result.stderr.contains("\r"), "a pipe gets plain lines, not a redrawn bar")
            #expect(result.stderr.components(separatedBy: "\n").filter { $0.hasPrefix("epoch ") }.count == 10)
            let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
            #expect(lines.count == 10)
            let records = try lines.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
            #expect(records.map { $0["epoch"] as? Int } == (1...10).map { $0 })
            let losses = records.compactMap { $0["loss"] as? Double }
            #expect(losses.count == 10 && losses.last! < losses.first!)
            #expect(records.allSatisfy { ($0["accuracy"] as? Double).map { (0...1).contains($0) } ?? false })
            #expect(records.allSatisfy { ($0["seconds"] as? Double ?? -1) >= 0 })
            #expect(try String(contentsOfFile: curve, encoding: .utf8).contains("<svg"))

            let evaluation = try CommandRunner.run(["evaluate", output, "--data", test.path, "--scale", "1", "--json"])
            #expect(evaluation.status == 0, "\(evaluation.stderr)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(evaluation.stdout.utf8)) as? [String: Any])
            #expect(json["examples"] as? Int == 60)
            #expect((json["accuracy"] as? Double ?? 0) > 0.9)
            let report = try #require(json["report"] as? [String: Any])
            let matrix = try #require(report["confusionMatrix"] as? [[Int]])
            #expect(matrix.count == 3 && matrix.flatMap { $0 }.reduce(0, +) == 60)
            #expect(report["classNames"] as? [String] == ["setosa", "versicolor", "virginica"])

            let text = try CommandRunner.run(["evaluate", output, "--data", test.path, "--scale", "1"])
            #expect(text.status == 0 && text.stdout.contains("accuracy") && text.stdout.contains("versicolor"))
        }
    }

    @Test func leNetTrainsFromAnIDXFolderIntoACompiledModel() throws {
        try withTemporaryDirectory { folder in
            var random = TestRandom(seed: 9)
            let count = 40
            let pixels = (0..<(count * 784)).map { _ in UInt8(random.int(0..<256)) }
            let labels = (0..<count).map { UInt8($0 % 10) }
            try idxImages(pixels, count: count, rows: 28, columns: 28).write(to: folder.appendingPathComponent("train-images-idx3-ubyte"))
            try writeGzip(idxLabels(labels), to: folder.appendingPathComponent("train-labels-idx1-ubyte.gz"))
            let output = folder.appendingPathComponent("LeNet.mlmodelc").path
            let result = try CommandRunner.run([
                "train", Fixtures.url("lenet_updatable.mlmodel").path, "--data", folder.path, "--epochs", "1", "--batch-size", "32", "--output", output,
            ])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(FileManager.default.fileExists(atPath: output + "/model.mlmodel"))
        }
    }

    @Test func badInputFailsWithOneLineAndLeavesTheOutputAlone() throws {
        try withTemporaryDirectory { folder in
            let output = folder.appendingPathComponent("out.mlmodel")
            try Data("keep me".utf8).write(to: output)
            func train(_ csv: String, _ extra: [String] = []) throws -> CommandResult {
                let data = folder.appendingPathComponent("data.csv")
                try csv.write(to: data, atomically: true, encoding: .utf8)
                return try CommandRunner.run(["train", Self.classifier, "--data", data.path, "--scale", "1", "--output", output.path] + extra)
            }
            let cases: [(CommandResult, [String])] = [
                (try train("0,1,2,3,4\n5,1,2,3,4\n"), ["example 1", "label 5", "3 classes"]),
                (try train("0,1,2,3,4,5\n1,1,2,3,4,5\n"), ["5 values", "'features'", "4"]),
                (try train("0,1,2,nan,4\n"), ["line 1"]),
                (try train("0,1,2,3,4\n", ["--epochs", "7"]), ["epochs", "7"]),
                (try train("0,1,2,3,4\n", ["--learning-rate", "3"]), ["learningRate"]),
                (try CommandRunner.run(["train", Self.classifier, "--data", folder.appendingPathComponent("missing").path, "--output", output.path]), ["missing", "no such file"]),
                (try CommandRunner.run(["train", Fixtures.url("glm_classifier.mlmodel").path, "--data", folder.path, "--output", output.path]), ["not updatable"]),
            ]
            for (result, pieces) in cases {
                #expect(result.status == 1, "\(result.stderr)")
                let lines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("error:") }
                #expect(lines.count == 1, "\(result.stderr)")
                for piece in pieces { #expect(result.stderr.contains(piece), "\(piece) not in: \(result.stderr)") }
            }
            #expect(try String(contentsOf: output, encoding: .utf8) == "keep me")
        }
    }

    @Test func predictReadsJSONAndNPYInputs() throws {
        try withTemporaryDirectory { folder in
            let json = folder.appendingPathComponent("x.json")
            try "[1.5, -1, 0.5, 0]".write(to: json, atomically: true, encoding: .utf8)
            let result = try CommandRunner.run(["predict", Self.classifier, "--input", "features=\(json.path)", "--json"])
            #expect(result.status == 0, "\(result.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            let label = try #require(object["classLabel"] as? String)
            let scores = try #require(object["classProbability"] as? [String: Double])
            #expect(Set(scores.keys) == ["setosa", "versicolor", "virginica"])
            #expect(scores.max { $0.value < $1.value }?.key == label)

            // A float32 .npy image of 1×28×28 for LeNet, written by hand.
            var header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 28, 28), }"
            while (10 + header.utf8.count + 1) % 64 != 0 { header += " " }
            header += "\n"
            var bytes: [UInt8] = [0x93] + Array("NUMPY".utf8) + [1, 0, UInt8(header.utf8.count & 0xFF), UInt8(header.utf8.count >> 8)] + Array(header.utf8)
            for index in 0..<784 { withUnsafeBytes(of: Float(index % 28) / 28) { bytes += $0 } }
            let npy = folder.appendingPathComponent("image.npy")
            try Data(bytes).write(to: npy)
            let lenet = try CommandRunner.run(["predict", Fixtures.url("lenet_updatable.mlmodel").path, "--input", "image=\(npy.path)"])
            #expect(lenet.status == 0, "\(lenet.stderr)")
            #expect(lenet.stdout.contains("output: shape [10]"))

            try "[1, 2, 3]".write(to: json, atomically: true, encoding: .utf8)
            let wrong = try CommandRunner.run(["predict", Self.classifier, "--input", "features=\(json.path)"])
            #expect(wrong.status == 1 && wrong.stderr.contains("3 values"), "\(wrong.stderr)")
        }
    }
}
