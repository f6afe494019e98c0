import Foundation
import Testing
import _OpenCoreMLTestSupport

/// `bench lenet`, `bench lenet-inference` and `bench update-tasks` on a few generated digits: the
/// tables and JSON reports are complete and their measurements positive (no timing thresholds).
@Suite("bench lenet, lenet-inference, update-tasks")
struct LeNetBenchCommandTests {
    /// Runs `opencoreml bench ARGUMENTS --json` and returns the report.
    static func report(_ arguments: [String]) throws -> [String: Any] {
        let result = try CommandRunner.run(["bench"] + arguments + ["--json"])
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    static func positive(_ report: [String: Any], _ key: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let value = report[key] as? Double
        #expect(value.map { $0 > 0 && $0.isFinite } == true, "\(key) = \(String(describing: report[key]))", sourceLocation: sourceLocation)
    }

    @Test func lenetTrainingReportsEpochsSpeedAccuracyMemoryAndAProfile() throws {
        let report = try Self.report(["lenet", "--examples", "300", "--test-examples", "50", "--epochs", "2", "--threads", "2", "--profile"])
        #expect((report["epochSeconds"] as? [Double])?.count == 2)
        #expect(report["examples"] as? Int == 300)
        #expect(report["threads"] as? Int == 2)
        for key in ["secondsPerEpochMedian", "samplesPerSecond", "gflops", "peakRSSMegabytes"] { Self.positive(report, key) }
        let accuracy = try #require(report["testAccuracy"] as? Double)
        #expect(accuracy >= 0 && accuracy <= 1)
        // One row per layer, then loss, optimizer, batch copy and the total; the layers' shares add up.
        let rows = try #require(report["profile"] as? [[String: Any]])
        #expect(rows.map { $0["name"] as? String } == [
            "conv1", "relu1", "pool1", "conv2", "relu2", "pool2", "flatten", "dense1", "relu3", "dense2", "softmax",
            "loss", "optimizer", "batch copy", "total",
        ])
        #expect(rows.first { $0["name"] as? String == "relu1" }?["type"] as? String == "activation (in conv1)")
        let shares = rows.dropLast().compactMap { $0["share"] as? Double }.reduce(0, +)
        #expect(abs(shares - 1) < 1e-6)
        #expect((rows.first { $0["name"] as? String == "dense1" }?["gflops"] as? Double ?? 0) > 0)
    }

    @Test func lenetTrainingPrintsTables() throws {
        let result = try CommandRunner.run(["bench", "lenet", "--examples", "200", "--test-examples", "40", "--epochs", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        for row in ["seconds per epoch (median)", "samples per second", "GFLOP/s", "test accuracy", "peak resident memory"] {
            #expect(result.stdout.contains(row), "missing row \(row):\n\(result.stdout)")
        }
    }

    @Test func inferenceReportsLatencyAndThroughput() throws {
        let report = try Self.report(["lenet-inference", "--test-examples", "40", "--iterations", "30", "--batches", "3", "--batch-size", "16"])
        #expect(report["batchSize"] as? Int == 16)
        for key in ["latencyMillisecondsMedian", "latencyMillisecondsP90", "batchMillisecondsMedian", "samplesPerSecond", "peakRSSMegabytes"] {
            Self.positive(report, key)
        }
        let median = try #require(report["latencyMillisecondsMedian"] as? Double)
        let p90 = try #require(report["latencyMillisecondsP90"] as? Double)
        #expect(p90 >= median)
    }

    @Test func updateTasksReportTheMemoryAfterEachTask() throws {
        let report = try Self.report(["update-tasks", "--count", "4", "--examples", "40"])
        let resident = try #require(report["residentMegabytes"] as? [Double])
        #expect(resident.count == 4)
        #expect(resident.allSatisfy { $0 > 0 })
        let growth = try #require(report["growthMegabytes"] as? Double)
        #expect(abs(growth - (resident[3] - resident[0])) < 1e-9)
        Self.positive(report, "secondsPerTaskMedian")
    }

    @Test func badArgumentsAreUsageErrors() throws {
        #expect(try CommandRunner.run(["bench", "lenet", "--epochs", "0"]).status == 2)
        #expect(try CommandRunner.run(["bench", "update-tasks", "--count", "1"]).status == 2)
        #expect(try CommandRunner.run(["bench", "lenet-inference", "--threads", "0"]).status == 2)
    }
}
