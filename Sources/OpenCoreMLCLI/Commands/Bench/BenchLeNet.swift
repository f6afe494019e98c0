import ArgumentParser
import CoreMLSpec
import Foundation
import OpenCoreML
import OpenCreateML

/// `opencoreml bench lenet`: LeNet training through `MLUpdateTask`, timed per epoch; test accuracy
/// and peak memory. `Scripts/bench_lenet_tf.py` is the TensorFlow peer.
struct BenchLeNet: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lenet",
        abstract: "Train LeNet with MLUpdateTask; print seconds per epoch, samples/s, GFLOP/s, test accuracy and peak memory.",
        discussion: """
            The epochs are timed from the update task's progress events (the training loop alone; converting \
            the examples is reported apart). --profile then runs one more epoch through the engine with a \
            clock around every layer and prints where the time goes.
            """
    )

    @OptionGroup var options: LeNetBenchOptions

    @Option(help: "Epochs to train (the model must allow the number).")
    var epochs = 3

    @Flag(help: "Also print per-layer forward/backward times over one more epoch run through the engine.")
    var profile = false

    @Flag(help: "Print one JSON object instead of tables.")
    var json = false

    func validate() throws {
        if epochs < 1 { throw ValidationError("--epochs must be at least 1, got \(epochs)") }
    }

    struct Report: Encodable {
        var isa: String
        var threads: Int
        var examples: Int
        var batchSize: Int
        var epochSeconds: [Double]
        var secondsPerEpochMedian: Double
        /// Processor time per epoch (all threads; median): what the epoch costs on a busy machine.
        var cpuSecondsPerEpochMedian: Double
        var samplesPerSecond: Double
        var gflops: Double
        var conversionSeconds: Double
        var trainingAccuracy: Double?
        var testAccuracy: Double
        var peakRSSMegabytes: Double
        var profile: [ProfileRow]?
    }

    func run() throws {
        let threads = options.applyThreads()
        let model = try options.loadModel(parameters: [.epochs: epochs])
        let train = try options.trainingSet(), test = try options.testSet()
        let examples = try CLIError.wrapping { try train.batchProvider(for: model) }
        let batchSize = (try? model.parameterValue(for: .miniBatchSize)) as? Int ?? 128
        guard let multiplyAdds = model.multiplyAddsPerExample?.training else { throw CLIError.model("the model is not a neural network") }

        let start = monotonicSeconds()
        let result = try TrainingSession(model: model, examples: examples, quiet: true).run()
        let history = result.epochs
        let total = monotonicSeconds() - start
        let seconds = history.map(\.seconds)
        let median = Samples(seconds).median
        let accuracy = try CLIError.wrapping { try MLClassifierMetrics(model: result.model, on: test).accuracy }
        let rows = profile ? try CLIError.wrapping { ProfileRow.rows(try model.trainingProfile(on: examples)) } : nil

        let report = Report(
            isa: OpenCoreMLRuntime.instructionSet.rawValue, threads: threads, examples: train.count, batchSize: batchSize,
            epochSeconds: seconds, secondsPerEpochMedian: median,
            cpuSecondsPerEpochMedian: Samples(history.map(\.processorSeconds)).median, samplesPerSecond: Double(train.count) / median,
            gflops: 2 * Double(multiplyAdds) * Double(train.count) / median / 1e9,
            conversionSeconds: max(0, total - seconds.reduce(0, +)), trainingAccuracy: history.last?.accuracy,
            testAccuracy: accuracy, peakRSSMegabytes: Double(OpenCoreMLRuntime.peakResidentBytes) / 1e6, profile: rows)
        if json {
            try printJSON(report)
            return
        }
        print("LeNet training: \(grouped(train.count)) examples of \(train.name), batch \(batchSize), \(threads) thread(s), \(report.isa)")
        print(EpochTable.render(history))
        print("")
        var table = TextTable(["measure", "value"], alignments: [.left, .right])
        table.append(["seconds per epoch (median)", String(format: "%.3f", median)])
        table.append(["processor seconds per epoch (median, all threads)", String(format: "%.3f", report.cpuSecondsPerEpochMedian)])
        table.append(["samples per second", grouped(Int(report.samplesPerSecond.rounded()))])
        table.append(["GFLOP/s (\(String(format: "%.2f", 2 * Double(multiplyAdds) / 1e6)) MFLOP per example)", String(format: "%.1f", report.gflops)])
        table.append(["converting the examples (s)", String(format: "%.2f", report.conversionSeconds)])
        table.append(["test accuracy (\(grouped(test.count)) examples)", String(format: "%.2f%%", accuracy * 100)])
        table.append(["peak resident memory", megabytes(OpenCoreMLRuntime.peakResidentBytes)])
        print(table.render())
        if let rows {
            print("")
            let clock = threads == 1 ? "processor time of the one thread" : "elapsed time"
            print("Where one epoch's time goes (engine, \(grouped(train.count)) examples, batch \(batchSize), \(clock)):")
            print(ProfileRow.render(rows))
        }
    }

    /// One row of the per-layer profile (times per mini-batch).
    struct ProfileRow: Encodable {
        var name: String
        var type: String
        var forwardMilliseconds: Double?
        var backwardMilliseconds: Double?
        var milliseconds: Double
        /// Effective GFLOP/s of the layer's matrix products (nil for layers without any).
        var gflops: Double?
        var share: Double

        static func render(_ rows: [ProfileRow]) -> String {
            var table = TextTable(["layer", "type", "forward ms", "backward ms", "total ms", "GFLOP/s", "share"],
                                  alignments: [.left, .left, .right, .right, .right, .right, .right])
            func ms(_ value: Double?) -> String { value.map { String(format: "%.3f", $0) } ?? "" }
            for row in rows {
                table.append([
                    row.name, row.type, ms(row.forwardMilliseconds), ms(row.backwardMilliseconds), ms(row.milliseconds),
                    row.gflops.map { String(format: "%.1f", $0) } ?? "", String(format: "%.1f%%", row.share * 100),
                ])
            }
            return table.render()
        }
    }

}

extension BenchLeNet.ProfileRow {
    /// The rows of a training profile, with each layer's GFLOP/s and share and a total row.
    static func rows(_ profile: MLTrainingProfile) -> [Self] {
        let total = profile.secondsPerBatch
        let perExample = Double(profile.batches) / Double(max(profile.examples, 1))
        var rows = profile.entries.map { entry in
            Self(name: entry.name, type: entry.type,
                 forwardMilliseconds: entry.forwardSeconds.map { $0 * 1e3 }, backwardMilliseconds: entry.backwardSeconds.map { $0 * 1e3 },
                 milliseconds: entry.seconds * 1e3,
                 gflops: entry.trainingMultiplyAdds > 0 && entry.seconds > 0
                     ? 2 * Double(entry.trainingMultiplyAdds) / (entry.seconds * perExample) / 1e9 : nil,
                 share: entry.seconds / total)
        }
        rows.append(Self(name: "total", type: "", milliseconds: total * 1e3, share: 1))
        return rows
    }
}

/// Prints `value` as pretty, key-sorted JSON.
func printJSON<T: Encodable>(_ value: T) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}
