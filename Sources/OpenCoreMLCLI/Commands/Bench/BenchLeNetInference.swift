import ArgumentParser
import Foundation
import OpenCoreML
import OpenCreateML

/// `opencoreml bench lenet-inference`: LeNet predictions through the public API, one example at a
/// time (`prediction(from:)` latency) and in batches (`predictions(fromBatch:)` throughput).
struct BenchLeNetInference: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lenet-inference",
        abstract: "Time LeNet predictions through MLModel: batch-1 latency (median, p90) and batch throughput.",
        discussion: "Inputs are MLMultiArrays made beforehand, as an app holds them; outputs are the feature providers MLModel returns."
    )

    @OptionGroup var options: LeNetBenchOptions

    @Option(help: "Single-example predictions to time.")
    var iterations = 2_000

    @Option(help: "Batches to time.")
    var batches = 50

    @Option(name: .customLong("batch-size"), help: "Examples per batch.")
    var batchSize = 128

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    func validate() throws {
        guard iterations >= 1, batches >= 1, batchSize >= 1 else {
            throw ValidationError("--iterations, --batches and --batch-size must be at least 1")
        }
    }

    struct Report: Encodable {
        var isa: String
        var threads: Int
        var latencyMillisecondsMedian: Double
        var latencyMillisecondsP90: Double
        var batchSize: Int
        var batchMillisecondsMedian: Double
        var samplesPerSecond: Double
        var peakRSSMegabytes: Double
    }

    func run() throws {
        let threads = options.applyThreads()
        let model = try options.loadModel()
        let test = try options.testSet()
        let examples = try CLIError.wrapping { try test.batchProvider(for: model) }
        let inputs = (0..<max(batchSize, min(test.count, 1_000))).map { examples.features(at: $0 % test.count) }

        func predictOne(_ index: Int) throws {
            do {
                _ = try model.prediction(from: inputs[index % inputs.count])
            } catch {
                throw CLIError.wrap(error)
            }
        }
        for index in 0..<50 { try predictOne(index) }
        var latencies: [Double] = []
        latencies.reserveCapacity(iterations)
        for index in 0..<iterations {
            let start = monotonicSeconds()
            try predictOne(index)
            latencies.append(monotonicSeconds() - start)
        }

        let batch = MLArrayBatchProvider(array: Array(inputs.prefix(batchSize)))
        func predictBatch() throws -> Double {
            let start = monotonicSeconds()
            do {
                let outputs = try model.predictions(fromBatch: batch)
                guard outputs.count == batchSize else { throw CLIError.model("predictions(fromBatch:) returned \(outputs.count) outputs for \(batchSize) inputs") }
            } catch {
                throw CLIError.wrap(error)
            }
            return monotonicSeconds() - start
        }
        for _ in 0..<3 { _ = try predictBatch() }
        let batchTimes = Samples(try (0..<batches).map { _ in try predictBatch() })

        let latency = Samples(latencies)
        let report = Report(
            isa: OpenCoreMLRuntime.instructionSet.rawValue, threads: threads, latencyMillisecondsMedian: latency.median * 1e3,
            latencyMillisecondsP90: latency.percentile(0.9) * 1e3, batchSize: batchSize,
            batchMillisecondsMedian: batchTimes.median * 1e3, samplesPerSecond: Double(batchSize) / batchTimes.median,
            peakRSSMegabytes: Double(OpenCoreMLRuntime.peakResidentBytes) / 1e6)
        if json {
            try printJSON(report)
            return
        }
        print("LeNet inference through MLModel, \(threads) thread(s), \(report.isa)")
        var table = TextTable(["measure", "value"], alignments: [.left, .right])
        table.append(["batch-1 latency, median (\(grouped(iterations)) predictions)", String(format: "%.3f ms", report.latencyMillisecondsMedian)])
        table.append(["batch-1 latency, p90", String(format: "%.3f ms", report.latencyMillisecondsP90)])
        table.append(["batch-\(batchSize) time, median (\(batches) batches)", String(format: "%.2f ms", report.batchMillisecondsMedian)])
        table.append(["batch-\(batchSize) throughput", "\(grouped(Int(report.samplesPerSecond.rounded()))) samples/s"])
        table.append(["peak resident memory", megabytes(OpenCoreMLRuntime.peakResidentBytes)])
        print(table.render())
    }
}
