import ArgumentParser
import CoreMLSpec
import Foundation
import OpenCoreML

/// `opencoreml bench knn`: a k-NN classifier of many samples, through `MLModel`, on generated data
/// that `Scripts/bench_knn.py` regenerates identically for scikit-learn.
struct BenchKNN: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "knn",
        abstract: "Time a k-NN classifier: loading, one-query latency and batch throughput.",
        discussion: """
            Sample j belongs to class j mod --classes and is its class centre plus uniform noise; queries \
            are drawn the same way. Values come from a counter-based generator (BenchData) that \
            Scripts/bench_knn.py reproduces bit for bit.
            """
    )

    @Option(help: "Stored samples.")
    var samples = 100_000

    @Option(help: "Values per sample.")
    var dimensions = 1_000

    @Option(help: "Queries in the batch.")
    var queries = 1_000

    @Option(help: "Classes.")
    var classes = 10

    @Option(help: "Neighbours that vote.")
    var k = 5

    @Option(help: "linear or kd-tree.")
    var index = "linear"

    @Option(name: .customLong("leaf-size"), help: "kd-tree leaf size.")
    var leafSize = 30

    @Option(help: "Threads to use (default: all cores).")
    var threads: Int?

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    struct Report: Encodable {
        var index: String
        var samples: Int
        var dimensions: Int
        var queries: Int
        var k: Int
        var threads: Int
        var loadSeconds: Double
        var singleQueryMilliseconds: Double
        var batchSeconds: Double
        var accuracy: Double
        var peakResidentMegabytes: Double
    }

    func validate() throws {
        for (name, value) in [("--samples", samples), ("--dimensions", dimensions), ("--queries", queries), ("--classes", classes), ("--k", k), ("--leaf-size", leafSize)] where value < 1 {
            throw ValidationError("\(name) must be at least 1, got \(value)")
        }
        guard ["linear", "kd-tree"].contains(index) else { throw ValidationError("--index must be linear or kd-tree, got \(index)") }
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1, got \(threads)") }
    }

    func run() throws {
        if let threads { OpenCoreMLRuntime.threadCount = threads }
        let data = BenchData(dimensions: dimensions, classes: classes)
        var specification = CoreML_Specification_Model()
        specification.specificationVersion = 4
        var knn = CoreML_Specification_KNearestNeighborsClassifier()
        knn.nearestNeighborsIndex.numberOfDimensions = Int32(dimensions)
        knn.nearestNeighborsIndex.squaredEuclideanDistance = .init()
        if index == "linear" {
            knn.nearestNeighborsIndex.linearIndex = .init()
        } else {
            knn.nearestNeighborsIndex.singleKdTreeIndex.leafSize = Int32(leafSize)
        }
        knn.numberOfNeighbors.defaultValue = Int64(k)
        knn.numberOfNeighbors.range.minValue = 1
        knn.numberOfNeighbors.range.maxValue = Int64(max(k, samples))
        knn.uniformWeighting = .init()
        knn.defaultStringLabel = "none"
        knn.nearestNeighborsIndex.floatSamples = (0..<samples).map { j in
            var vector = CoreML_Specification_FloatVector()
            vector.vector = data.row(stream: 2, index: j)
            return vector
        }
        knn.stringClassLabels.vector = (0..<samples).map { "class \($0 % classes)" }
        specification.kNearestNeighborsClassifier = knn
        specification.description_p = Self.description(dimensions: dimensions)

        let queryRows = (0..<queries).map { data.row(stream: 3, index: $0) }
        let inputs: [MLFeatureProvider] = try queryRows.map { row in
            let array = try MLMultiArray(shape: [NSNumber(value: dimensions)], dataType: .float32)
            array.withUnsafeMutableBufferPointer(ofType: Float.self) { buffer, _ in _ = buffer.initialize(from: row) }
            return MLDictionaryFeatureProvider(featureValues: ["features": MLFeatureValue(multiArray: array)])
        }

        // Loading: validation, the index (and kd-tree) built by the first prediction.
        let loadStart = DispatchTime.now()
        let model = try MLModel(specification: specification)
        _ = try model.prediction(from: inputs[0])
        let loadSeconds = seconds(since: loadStart)

        var singles: [Double] = []
        for query in 0..<min(queries, 21) {
            let start = DispatchTime.now()
            _ = try model.prediction(from: inputs[query])
            singles.append(seconds(since: start) * 1000)
        }
        let batchStart = DispatchTime.now()
        let outputs = try model.predictions(fromBatch: MLArrayBatchProvider(array: inputs))
        let batchSeconds = seconds(since: batchStart)
        var correct = 0
        for query in 0..<outputs.count where outputs.features(at: query).featureValue(for: "label")?.stringValue == "class \(query % classes)" {
            correct += 1
        }
        let report = Report(
            index: index, samples: samples, dimensions: dimensions, queries: queries, k: k, threads: OpenCoreMLRuntime.threadCount,
            loadSeconds: loadSeconds, singleQueryMilliseconds: singles.sorted()[singles.count / 2], batchSeconds: batchSeconds,
            accuracy: Double(correct) / Double(queries), peakResidentMegabytes: Double(OpenCoreMLRuntime.peakResidentBytes) / 1_048_576)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
            return
        }
        var table = TextTable(["k-NN \(index), \(grouped(samples)) × \(grouped(dimensions)), k = \(k), \(report.threads) thread(s)", "value"], alignments: [.left, .right])
        table.append(["load (validate, build index, first prediction)", String(format: "%.3f s", loadSeconds)])
        table.append(["one query (median of \(singles.count))", String(format: "%.2f ms", report.singleQueryMilliseconds)])
        table.append(["\(grouped(queries)) queries in one batch", String(format: "%.3f s (%.0f queries/s)", batchSeconds, Double(queries) / batchSeconds)])
        table.append(["accuracy", String(format: "%.2f%%", report.accuracy * 100)])
        table.append(["peak resident memory", String(format: "%.0f MB", report.peakResidentMegabytes)])
        print(table.render())
    }

    static func description(dimensions: Int) -> CoreML_Specification_ModelDescription {
        var description = CoreML_Specification_ModelDescription()
        var input = CoreML_Specification_FeatureDescription()
        input.name = "features"
        input.type.multiArrayType.shape = [Int64(dimensions)]
        input.type.multiArrayType.dataType = .float32
        var label = CoreML_Specification_FeatureDescription()
        label.name = "label"
        label.type.stringType = .init()
        var probabilities = CoreML_Specification_FeatureDescription()
        probabilities.name = "labelProbability"
        probabilities.type.dictionaryType.stringKeyType = .init()
        description.input = [input]
        description.output = [label, probabilities]
        description.predictedFeatureName = "label"
        description.predictedProbabilitiesName = "labelProbability"
        return description
    }

    private func seconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }
}

/// Counter-based benchmark data, reproducible in numpy (`Scripts/bench_knn.py`): value i of stream s
/// is a SplitMix64-style hash of (s, i) scaled to [0, 1).
struct BenchData {
    let dimensions: Int
    let classes: Int
    /// Class centres in [−1, 1), from stream 1.
    private let centres: [Float]
    static let noise: Float = 1.5

    init(dimensions: Int, classes: Int) {
        self.dimensions = dimensions
        self.classes = classes
        centres = (0..<(classes * dimensions)).map { 2 * Self.uniform(stream: 1, index: UInt64($0)) - 1 }
    }

    static func uniform(stream: UInt64, index: UInt64) -> Float {
        var z = (stream << 40) ^ index
        z = z &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Float(z >> 40) / Float(1 << 24)
    }

    /// Row `index` of `stream`: its class centre (index mod classes) plus uniform noise.
    func row(stream: UInt64, index: Int) -> [Float] {
        let centre = (index % classes) * dimensions
        return (0..<dimensions).map { d in
            centres[centre + d] + Self.noise * (2 * Self.uniform(stream: stream, index: UInt64(index * dimensions + d)) - 1)
        }
    }
}
