import ArgumentParser
import CoreMLSpec
import Foundation
import OpenCoreML
import OpenCreateML

/// `opencoreml bench update-tasks`: many `MLUpdateTask`s in a row on the same model file (each
/// training the previous one's result, as an app personalizing a model does), and the resident
/// memory after each: the process should not grow.
struct BenchUpdateTasks: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update-tasks",
        abstract: "Run many MLUpdateTasks in a row on one model file and print the resident memory after each.",
        discussion: """
            Each task trains one epoch on --examples examples (default 512) and its completion handler writes the model \
            back. The resident memory is read 20 ms after each task reports it has completed.
            """
    )

    @OptionGroup var options: LeNetBenchOptions

    @Option(help: "Update tasks to run.")
    var count = 100

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    func validate() throws {
        if count < 2 { throw ValidationError("--count must be at least 2, got \(count)") }
    }

    struct Report: Encodable {
        var tasks: Int
        var examplesPerTask: Int
        /// Resident memory after each task, in megabytes.
        var residentMegabytes: [Double]
        var growthMegabytes: Double
        var growthAfterFirstTenMegabytes: Double?
        var secondsPerTaskMedian: Double
    }

    func run() throws {
        options.applyThreads()
        let model = try options.loadModel(parameters: [.epochs: 1])
        let all = try options.trainingSet()
        let data = options.examples == nil ? all.prefix(512) : all
        let examples = try CLIError.wrapping { try data.batchProvider(for: model) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("opencoreml-update-tasks-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("model.mlmodel")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try model.write(to: url)
        } catch {
            throw CLIError.wrap(error)
        }
        let configuration = MLModelConfiguration()
        configuration.parameters = [.epochs: 1]

        var resident: [Int] = []
        var seconds: [Double] = []
        for _ in 0..<count {
            let start = monotonicSeconds()
            do {
                let failure = FailureBox()
                let task: MLUpdateTask
                do {
                    task = try MLUpdateTask(forModelAt: url, trainingData: examples, configuration: configuration,
                                            completionHandler: { context in
                                                do {
                                                    if let error = context.task.error { throw error }
                                                    try context.model.write(to: url)
                                                } catch {
                                                    failure.error = error
                                                }
                                            })
                } catch {
                    throw CLIError.wrap(error)
                }
                task.resume()
                task.waitUntilFinished()
                if let error = failure.error { throw CLIError.wrap(error) }
            }
            seconds.append(monotonicSeconds() - start)
            usleep(20_000)
            resident.append(OpenCoreMLRuntime.currentResidentBytes)
        }

        let megabytes = resident.map { Double($0) / 1e6 }
        let report = Report(
            tasks: count, examplesPerTask: data.count, residentMegabytes: megabytes, growthMegabytes: megabytes.last! - megabytes[0],
            growthAfterFirstTenMegabytes: count > 10 ? megabytes.last! - megabytes[9] : nil, secondsPerTaskMedian: Samples(seconds).median)
        if json {
            try printJSON(report)
            return
        }
        print("\(count) MLUpdateTasks in a row, 1 epoch of \(grouped(data.count)) examples each, model written back after each")
        var table = TextTable(["after task", "resident memory"], alignments: [.right, .right])
        let shown = Set([1, 2, 5, 10, 25, 50, 75, count].filter { $0 <= count })
        for task in shown.sorted() { table.append(["\(task)", String(format: "%.1f MB", megabytes[task - 1])]) }
        print(table.render())
        print("")
        var summary = TextTable(["measure", "value"], alignments: [.left, .right])
        summary.append(["growth, task 1 → \(count)", String(format: "%+.1f MB", report.growthMegabytes)])
        if let later = report.growthAfterFirstTenMegabytes { summary.append(["growth, task 10 → \(count)", String(format: "%+.1f MB", later)]) }
        summary.append(["seconds per task (median)", String(format: "%.3f", report.secondsPerTaskMedian)])
        print(summary.render())
    }
}

/// An error handed from the completion handler's thread to the loop.
private final class FailureBox: @unchecked Sendable {
    var error: Error?
}
