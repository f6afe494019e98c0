import ArgumentParser
import CoreMLSpec
import Foundation
import OpenCoreML

/// `opencoreml bench predict MODEL`: prediction latency and throughput of any model, on inputs of
/// its declared shapes.
struct BenchPredict: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "predict",
        abstract: "Time predictions of any model on made-up inputs of its declared shapes (random pixels for images).",
        discussion: """
            Each timed call predicts --batch examples: prediction(from:) for a batch of 1, predictions(fromBatch:) \
            otherwise. Two untimed calls warm up first. latency_ms is the median time per call; throughput is \
            examples per second at that median. Optional inputs are left out; string and integer inputs are not supported.
            """)

    @Argument(help: "The .mlmodel file or .mlmodelc folder.")
    var model: String

    @Option(help: "Examples per prediction call.")
    var batch = 1

    @Option(help: "Threads to use (default: all cores).")
    var threads: Int?

    @Option(help: "Timed prediction calls.")
    var iterations = 20

    @Option(help: "Seeds the made-up inputs.")
    var seed = 0

    @Flag(help: "Also time every layer (neural networks) or step (ML Programs) over the same number of calls and print where the time goes.")
    var profile = false

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    struct Report: Encodable {
        let model: String
        let batch: Int
        let threads: Int
        let iterations: Int
        let latency_ms: Double
        let throughput: Double
        let p90_ms: Double
        var profile: [ProfileRow]?
        /// ML Programs: the most bytes the tensors held at once.
        var peak_tensor_bytes: Int?
    }

    /// One layer's time per call, or the layers of one type together (`layer` empty).
    struct ProfileRow: Encodable {
        let layer: String
        let type: String
        let ms: Double
        let share: Double
        let gflops: Double?
    }

    func validate() throws {
        if batch < 1 { throw ValidationError("--batch must be at least 1, got \(batch)") }
        if iterations < 1 { throw ValidationError("--iterations must be at least 1, got \(iterations)") }
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1, got \(threads)") }
    }

    func run() throws {
        if let threads { OpenCoreMLRuntime.threadCount = threads }
        let loaded = try loadModel(model)
        var generator = SplitMix64(seed: UInt64(bitPattern: Int64(seed)))
        let examples = try (0..<batch).map { _ in try Self.madeUpInput(for: loaded.modelDescription, using: &generator) }
        let provider = MLArrayBatchProvider(array: examples)
        let call: () throws -> Void = batch == 1
            ? { _ = try loaded.prediction(from: examples[0]) }
            : { _ = try loaded.predictions(fromBatch: provider) }
        try CLIError.wrapping {
            for _ in 0..<2 { try call() }
        }
        var times: [Double] = []
        for _ in 0..<iterations {
            let start = monotonicSeconds()
            try CLIError.wrapping { try call() }
            times.append(monotonicSeconds() - start)
        }
        let samples = Samples(times)
        var report = Report(model: model, batch: batch, threads: OpenCoreMLRuntime.threadCount, iterations: iterations,
                            latency_ms: samples.median * 1000, throughput: Double(batch) / samples.median, p90_ms: samples.percentile(0.9) * 1000)
        var layerProfile: MLPredictionProfile?
        if profile {
            layerProfile = try CLIError.wrapping { try loaded.predictionProfile(for: provider, calls: iterations) }
            report.profile = layerProfile.map { Self.rows($0, batch: batch) }
            report.peak_tensor_bytes = layerProfile?.peakTensorBytes
        }
        if json {
            try printJSON(report)
            return
        }
        print("\(model): batch \(batch), \(report.threads) thread(s), \(iterations) timed calls")
        print(String(format: "latency %.3f ms per call (median; 90th percentile %.3f ms)   throughput %.1f examples/s",
                     report.latency_ms, report.p90_ms, report.throughput))
        if let layerProfile, let rows = report.profile {
            let clock = layerProfile.isProcessorTime ? "processor time of the one thread" : "elapsed time"
            print("\nwhere a call's time goes (\(clock), mean of \(layerProfile.calls) calls; layers together \(String(format: "%.3f", layerProfile.secondsPerCall * 1000)) ms)")
            var table = TextTable(["layer", "type", "ms", "share", "GFLOP/s"], alignments: [.left, .left, .right, .right, .right])
            for row in rows {
                table.append([row.layer.isEmpty ? "all \(row.type)" : row.layer, row.layer.isEmpty ? "" : row.type, String(format: "%.3f", row.ms),
                              String(format: "%.1f%%", row.share * 100), row.gflops.map { String(format: "%.1f", $0) } ?? ""])
            }
            print(table.render())
            if let bytes = layerProfile.peakTensorBytes {
                print(String(format: "tensors held at most %.1f MB at once (inputs and intermediate values, each buffer once)", Double(bytes) / 1e6))
            }
        }
    }

    /// The layers by type (most time first), then the 15 slowest layers.
    static func rows(_ profile: MLPredictionProfile, batch: Int) -> [ProfileRow] {
        let total = max(profile.secondsPerCall, .leastNonzeroMagnitude)
        func gflops(_ multiplyAdds: Int, _ seconds: Double) -> Double? {
            multiplyAdds > 0 && seconds > 0 ? 2 * Double(multiplyAdds) * Double(batch) / seconds / 1e9 : nil
        }
        var byType: [String: (seconds: Double, multiplyAdds: Int)] = [:]
        for entry in profile.entries {
            let type = entry.type.components(separatedBy: " (in ").first ?? entry.type
            byType[type, default: (0, 0)].seconds += entry.seconds
            byType[type, default: (0, 0)].multiplyAdds += entry.multiplyAdds
        }
        let types = byType.sorted { $0.value.seconds > $1.value.seconds }.map { type, sum in
            ProfileRow(layer: "", type: type, ms: sum.seconds * 1000, share: sum.seconds / total, gflops: gflops(sum.multiplyAdds, sum.seconds))
        }
        let slowest = profile.entries.sorted { $0.seconds > $1.seconds }.prefix(15).map { entry in
            ProfileRow(layer: entry.name, type: entry.type, ms: entry.seconds * 1000, share: entry.seconds / total, gflops: gflops(entry.multiplyAdds, entry.seconds))
        }
        return types + slowest
    }

    /// One example: every required input made up from its declared type and shape.
    static func madeUpInput(for description: MLModelDescription, using generator: inout SplitMix64) throws -> MLFeatureProvider {
        var values: [String: MLFeatureValue] = [:]
        for feature in description.inputDescriptions where !feature.isOptional {
            if let constraint = feature.multiArrayConstraint {
                let array = try MLMultiArray(shape: constraint.shape, dataType: constraint.dataType)
                let count = constraint.shape.reduce(1) { $0 * $1.intValue }
                for index in 0..<count { array[index] = NSNumber(value: Float.random(in: -1...1, using: &generator)) }
                values[feature.name] = MLFeatureValue(multiArray: array)
            } else if let image = feature.imageConstraint {
                var buffer: CVPixelBuffer?
                guard CVPixelBufferCreate(nil, image.pixelsWide, image.pixelsHigh, image.pixelFormatType, nil, &buffer) == kCVReturnSuccess,
                      let buffer else {
                    throw CLIError.model("input '\(feature.name)': cannot make a \(image.pixelsWide)×\(image.pixelsHigh) picture of its format")
                }
                let bytes = CVPixelBufferGetBytesPerRow(buffer) * image.pixelsHigh
                let base = CVPixelBufferGetBaseAddress(buffer)!.assumingMemoryBound(to: UInt8.self)
                for index in 0..<bytes { base[index] = UInt8.random(in: 0...255, using: &generator) }
                values[feature.name] = MLFeatureValue(pixelBuffer: buffer)
            } else {
                throw CLIError.model("input '\(feature.name)' is \(feature.type): bench predict makes up multi-arrays and images only")
            }
        }
        return MLDictionaryFeatureProvider(featureValues: values)
    }
}

