import Foundation
import Testing
import _OpenCoreMLTestSupport

/// `opencoreml federated join` and `report`: bad arguments and an absent SuperLink end in one
/// error line and exit 1 (the federation itself is tested against a real SuperLink in
/// OpenCoreMLFlowerTests); `report` renders a history as a table and a chart.
struct FederatedCommandTests {
    static let model = Fixtures.url("classifier_sgd.mlmodel").path

    @Test func badArgumentsFailWithOneLine() throws {
        let partition = try CommandRunner.run(["federated", "join", Self.model, "--data", "generated-digits:20", "--partition", "4/3"])
        #expect(partition.status == 1 && partition.stderr == "error: --partition must be I/N with 1 ≤ I ≤ N, got '4/3'\n")
        let alpha = try CommandRunner.run(["federated", "join", Self.model, "--data", "generated-digits:20", "--dirichlet", "0"])
        #expect(alpha.status == 1 && alpha.stderr.contains("Dirichlet alpha must be a positive number, got 0.0"), "\(alpha.stderr)")
        let count = try CommandRunner.run(["federated", "join", Self.model, "--data", "generated-digits:x"])
        #expect(count.status == 1 && count.stderr.contains("generated-digits:N takes a count N"))
        // The fixture takes 4 numbers, not 28×28 pictures: the binding says so before any network call.
        let shape = try CommandRunner.run(["federated", "join", Self.model, "--data", "generated-digits:20", "--superlink", "127.0.0.1:1"])
        #expect(shape.status == 1 && shape.stderr.hasPrefix("error: ") && shape.stderr.split(separator: "\n").count == 1, "\(shape.stderr)")
    }

    @Test func anAbsentSuperLinkIsRetriedThenOneError() throws {
        let csv = FileManager.default.temporaryDirectory.appendingPathComponent("federated-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: csv) }
        try (0..<30).map { "\($0 % 3),\($0 % 3).0,1.0,\(Double($0) / 30),0.5" }.joined(separator: "\n").write(to: csv, atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["federated", "join", Self.model, "--data", csv.path, "--scale", "1", "--superlink", "127.0.0.1:9",
                                            "--insecure", "--max-wait", "1"])
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.contains { $0.contains("does not answer") && $0.contains("retrying in") }, "\(result.stderr)")
        #expect(lines.last?.hasPrefix("error: gave up: the SuperLink at 127.0.0.1:9 has not answered for") == true, "\(result.stderr)")
    }

    @Test func reportPrintsTheRoundsAndDrawsThem() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("report-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let history = folder.appendingPathComponent("history.json")
        try #"{"rounds": [{"round": 1, "loss": 0.5, "accuracy": 0.8, "num-examples": 3000, "seconds": 4.25}, {"round": 2, "loss": 0.25, "accuracy": 0.9125, "num-examples": 3000, "seconds": 4.0}]}"#
            .write(to: history, atomically: true, encoding: .utf8)
        let chart = folder.appendingPathComponent("rounds.svg")
        let result = try CommandRunner.run(["federated", "report", history.path, "--chart", chart.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("      2  0.2500   91.25 %     3,000      4.0"), "\(result.stdout)")
        let svg = try String(contentsOf: chart, encoding: .utf8)
        #expect(svg.contains(">round<") && svg.contains("round 2: accuracy 91.25%"))
        try "{\"rounds\": 3}".write(to: history, atomically: true, encoding: .utf8)
        let bad = try CommandRunner.run(["federated", "report", history.path])
        #expect(bad.status == 1 && bad.stderr.hasPrefix("error: \(history.path): not a federated history"))
    }
}
