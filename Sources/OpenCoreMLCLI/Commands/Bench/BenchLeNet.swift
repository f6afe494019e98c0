import ArgumentParser
import CoreMLSpec
import Foundation
import OpenCoreML
import _OpenCoreMLEngine
import _OpenCoreMLKernels

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
        let binding = try DatasetBinding(model: model, dataset: train)
        let batchSize = (try? model.parameterValue(for: .miniBatchSize)) as? Int ?? 128
        let multiplyAdds = try Network(model: model.specification).multiplyAddsPerExample.training

        let start = monotonicSeconds()
        let (trained, history) = try TrainingSession(model: model, dataset: train, binding: binding, quiet: true).run()
        let total = monotonicSeconds() - start
        let seconds = history.map(\.seconds)
        let median = Samples(seconds).median
        let accuracy = try Evaluation(model: trained, dataset: test, binding: binding).accuracy
        let rows = profile ? try Self.profile(model: model, dataset: train, batchSize: batchSize) : nil

        let report = Report(
            isa: String(cString: ocm_isa_name()), threads: threads, examples: train.count, batchSize: batchSize,
            epochSeconds: seconds, secondsPerEpochMedian: median,
            cpuSecondsPerEpochMedian: Samples(history.map(\.cpuSeconds)).median, samplesPerSecond: Double(train.count) / median,
            gflops: 2 * Double(multiplyAdds) * Double(train.count) / median / 1e9,
            conversionSeconds: max(0, total - seconds.reduce(0, +)), trainingAccuracy: history.last?.accuracy,
            testAccuracy: accuracy, peakRSSMegabytes: Double(ProcessUsage.peakResidentBytes) / 1e6, profile: rows)
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
        table.append(["peak resident memory", megabytes(ProcessUsage.peakResidentBytes)])
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

    /// One epoch through the engine (as the update task runs it), timing every layer, the loss, the
    /// optimizer and the copying of each mini-batch.
    static func profile(model: MLModel, dataset: LabeledDataset, batchSize: Int) throws -> [ProfileRow] {
        let network = try Network(model: model.specification)
        let optimizer = Optimizer(try optimizerSettings(model.specification.neuralNetworkSpecification?.updateParams.optimizer))
        guard let inputName = network.inputNames.first, let targetName = network.targetNames.first else {
            throw CLIError.model("the model has no input or no loss target to profile")
        }
        // One thread: each layer's processor time (robust on a busy machine); more: elapsed time.
        network.enableTimings(clock: ocm_num_threads() == 1 ? .threadCPU : .wall)
        var copying = 0.0
        let width = dataset.featureCount
        var position = 0
        while position < dataset.count {
            let size = min(batchSize, dataset.count - position)
            network.reserve(batch: size, training: true)
            copying += network.timings!.time {
                let input = network.inputBlob(named: inputName)!.value.pointer
                let target = network.inputBlob(named: targetName)!.value.pointer
                dataset.values.withUnsafeBufferPointer { values in
                    input.update(from: values.baseAddress! + position * width, count: size * width)
                }
                for row in 0..<size { target[row] = Float(dataset.labels[position + row]) }
            }
            _ = try network.trainingStep(batch: size)
            network.timings!.optimizer += network.timings!.time { optimizer.update(network.parameters) }
            position += size
        }
        let timings = network.timings!
        let batches = Double(timings.batches)
        let layerTotal = timings.entries.reduce(0) { $0 + $1.forward + $1.backward }
        let total = layerTotal + timings.loss + timings.optimizer + copying
        var rows = timings.entries.map { entry -> ProfileRow in
            let seconds = entry.forward + entry.backward
            let gflops = entry.trainingMultiplyAdds > 0 && seconds > 0
                ? 2 * Double(entry.trainingMultiplyAdds) * Double(dataset.count) / seconds / 1e9 : nil
            let type = entry.fusedInto.map { "\(entry.typeName) (in \($0))" } ?? entry.typeName
            return ProfileRow(name: entry.name, type: type, forwardMilliseconds: entry.forward / batches * 1e3,
                              backwardMilliseconds: entry.backward / batches * 1e3, milliseconds: seconds / batches * 1e3,
                              gflops: gflops, share: seconds / total)
        }
        for (name, seconds) in [("loss", timings.loss), ("optimizer", timings.optimizer), ("batch copy", copying)] {
            rows.append(ProfileRow(name: name, type: "", milliseconds: seconds / batches * 1e3, share: seconds / total))
        }
        rows.append(ProfileRow(name: "total", type: "", milliseconds: total / batches * 1e3, share: 1))
        return rows
    }
}

/// The engine's optimizer for an update parameters' optimizer, with its default values.
private func optimizerSettings(_ optimizer: CoreML_Specification_Optimizer?) throws -> OptimizerSettings {
    switch optimizer?.optimizerType {
    case .adamOptimizer(let adam)?:
        return .adam(learningRate: adam.learningRate.defaultValue, beta1: adam.beta1.defaultValue,
                     beta2: adam.beta2.defaultValue, eps: adam.eps.defaultValue)
    case .sgdOptimizer(let sgd)?:
        return .sgd(learningRate: sgd.learningRate.defaultValue, momentum: sgd.momentum.defaultValue)
    case nil:
        throw CLIError.model("the model has no optimizer to profile")
    }
}

/// Prints `value` as pretty, key-sorted JSON.
func printJSON<T: Encodable>(_ value: T) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}
