import ArgumentParser
import CoreMLSpec
import Foundation
import OpenCoreML

/// `opencoreml bench trees MODEL --rows FILE`: a tree ensemble's batch throughput and one-row
/// latency on rows a peer is timed on too (`Scripts/bench_trees.py`).
struct BenchTrees: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trees",
        abstract: "Time a tree ensemble (or any model of number and multi-array inputs) on rows read from a file.",
        discussion: """
            --rows holds float32 values, row after row, that fill the model's inputs in order (a number takes \
            one value, a multi-array its element count), as Core ML concatenates a classic model's inputs. \
            The examples are made before timing; a timed batch call is predictions(fromBatch:) on all rows, \
            a timed single call prediction(from:) on one. --output writes each row's first output as float64 \
            values (a probability dictionary in the order of its sorted keys) for comparison with the peer's.
            """)

    @Argument(help: "The .mlmodel file or .mlmodelc folder.")
    var model: String

    @Option(help: "The rows: raw float32 values.")
    var rows: String

    @Option(help: "Threads to use (default: all cores).")
    var threads: Int?

    @Option(help: "Timed batch calls (the median is reported).")
    var repeats = 3

    @Option(help: "Rows timed one at a time (the median is reported).")
    var singles = 200

    @Option(help: "Where to write the predictions (float64, row after row).")
    var output: String?

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    struct Report: Encodable {
        var model: String
        var rows: Int
        var threads: Int
        var loadSeconds: Double
        var batchSeconds: Double
        var singleRowMicroseconds: Double
    }

    func validate() throws {
        if repeats < 1 { throw ValidationError("--repeats must be at least 1, got \(repeats)") }
        if singles < 1 { throw ValidationError("--singles must be at least 1, got \(singles)") }
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1, got \(threads)") }
    }

    func run() throws {
        if let threads { OpenCoreMLRuntime.threadCount = threads }
        let start = monotonicSeconds()
        let loaded = try loadModel(model)
        let loadSeconds = monotonicSeconds() - start
        let inputs = loaded.modelDescription.inputDescriptions
        let counts = try inputs.map { feature -> Int in
            if let constraint = feature.multiArrayConstraint {
                guard let count = checkedProduct(constraint.shape.map(\.intValue)) else {
                    throw CLIError.model("input '\(feature.name)' has a shape too large to count")
                }
                return count
            }
            guard feature.type == .double || feature.type == .int64 else {
                throw CLIError.model("input '\(feature.name)' is \(feature.type): bench trees fills numbers and multi-arrays")
            }
            return 1
        }
        guard let width = counts.reduce(Optional(0), { sum, count in sum.flatMap { $0.addingReportingOverflow(count).overflow ? nil : $0 + count } }) else {
            throw CLIError.model("the inputs hold more values than a 64-bit count can hold")
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: rows))
        guard width > 0, data.count % (4 * width) == 0 else {
            throw CLIError.model("\(rows) holds \(data.count) bytes, not rows of \(width) float32 values")
        }
        let rowCount = data.count / (4 * width)
        let values: [Float] = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let examples: [MLFeatureProvider] = try (0..<rowCount).map { row in
            var position = row * width
            var features: [String: MLFeatureValue] = [:]
            for (feature, count) in zip(inputs, counts) {
                if let constraint = feature.multiArrayConstraint {
                    let array = try MLMultiArray(shape: constraint.shape, dataType: .float32)
                    let pointer = array.dataPointer.assumingMemoryBound(to: Float.self)
                    for index in 0..<count { pointer[index] = values[position + index] }
                    features[feature.name] = MLFeatureValue(multiArray: array)
                } else {
                    features[feature.name] = MLFeatureValue(double: Double(values[position]))
                }
                position += count
            }
            return try MLDictionaryFeatureProvider(dictionary: features)
        }
        let batch = MLArrayBatchProvider(array: examples)
        var results: MLBatchProvider?
        var batchTimes: [Double] = []
        try CLIError.wrapping {
            for _ in 0..<repeats {
                let start = monotonicSeconds()
                let made = try loaded.predictions(fromBatch: batch)
                batchTimes.append(monotonicSeconds() - start)
                results = made  // the previous results are freed outside the timed call
            }
        }
        var singleTimes: [Double] = []
        try CLIError.wrapping {
            for index in 0..<min(singles, rowCount) {
                let start = monotonicSeconds()
                _ = try loaded.prediction(from: examples[index])
                singleTimes.append(monotonicSeconds() - start)
            }
        }
        if let output, let results {
            try write(results, to: output)
        }
        let report = Report(model: model, rows: rowCount, threads: OpenCoreMLRuntime.threadCount, loadSeconds: loadSeconds,
                            batchSeconds: Samples(batchTimes).median, singleRowMicroseconds: Samples(singleTimes).median * 1e6)
        if json {
            try printJSON(report)
            return
        }
        print(String(format: "%@: %d rows, %d thread(s): load %.3f s, batch %.4f s (%.0f rows/s), one row %.1f µs (medians)",
                     model, rowCount, report.threads, loadSeconds, report.batchSeconds, Double(rowCount) / report.batchSeconds, report.singleRowMicroseconds))
    }

    /// Each row's first output as float64: a number, a multi-array's values, or a dictionary's values by sorted key.
    private func write(_ results: MLBatchProvider, to path: String) throws {
        var out: [Double] = []
        let name = loadedOutputName(results)
        for index in 0..<results.count {
            guard let value = results.features(at: index).featureValue(for: name) else { continue }
            switch value.type {
            case .double: out.append(value.doubleValue)
            case .int64: out.append(Double(value.int64Value))
            case .multiArray:
                let array = value.multiArrayValue!
                for element in 0..<array.count { out.append(array[element].doubleValue) }
            case .dictionary:
                let dictionary = value.dictionaryValue
                let keys = dictionary.keys.sorted { "\($0)".count != "\($1)".count ? "\($0)".count < "\($1)".count : "\($0)" < "\($1)" }
                for key in keys { out.append(dictionary[key]!.doubleValue) }
            default: break
            }
        }
        try out.withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: path)) }
    }

    /// The probability dictionary if there is one, else the first output by name.
    private func loadedOutputName(_ results: MLBatchProvider) -> String {
        guard results.count > 0 else { return "" }
        let names = results.features(at: 0).featureNames.sorted()
        return names.first { results.features(at: 0).featureValue(for: $0)?.type == .dictionary } ?? names.first ?? ""
    }
}
