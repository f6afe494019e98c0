import ArgumentParser
import Foundation
import OpenCoreML

/// `opencoreml bench fma`: the machine's multiply-add limit (independent fused multiply-adds
/// only), per thread count: the yardstick BENCHMARKS.md measures LeNet training against.
struct BenchFMA: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fma",
        abstract: "Measure the fused multiply-add limit of the cores (GFLOP/s), the yardstick for training speed."
    )

    @Option(help: "Threads to use (default: all cores).")
    var threads: Int?

    @Option(help: "Seconds to spend.")
    var seconds = 1.0

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    struct Report: Encodable {
        let isa: String
        let threads: Int
        let gflops: Double
        let gflopsPerThread: Double
    }

    func validate() throws {
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1, got \(threads)") }
        if !(seconds > 0) { throw ValidationError("--seconds must be positive, got \(seconds)") }
    }

    func run() throws {
        if let threads { OpenCoreMLRuntime.threadCount = threads }
        let gflops = OpenCoreMLRuntime.fusedMultiplyAddPeak(seconds: seconds)
        let count = OpenCoreMLRuntime.threadCount
        let report = Report(isa: OpenCoreMLRuntime.instructionSet.rawValue, threads: count, gflops: gflops, gflopsPerThread: gflops / Double(count))
        if json {
            try printJSON(report)
            return
        }
        print(String(format: "fused multiply-add limit, %@, %d thread(s): %.1f GFLOP/s (%.1f per thread)",
                     report.isa, count, gflops, report.gflopsPerThread))
    }
}
