import ArgumentParser
import Foundation
import OpenCoreML

/// `opencoreml bench …`: speed and memory measurements; `Scripts/bench_gemm.py` and
/// `Scripts/bench_lenet_tf.py` measure the peers, `Scripts/bench-all.sh` runs everything.
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure OpenCoreML's speed and memory.",
        subcommands: [BenchGEMM.self, BenchFMA.self, BenchLeNet.self, BenchLeNetInference.self, BenchUpdateTasks.self, BenchKNN.self, BenchLogisticRegression.self, BenchPredict.self, BenchTrees.self]
    )
}

/// `opencoreml bench gemm`: the matrix products of one LeNet training step (or EfficientNet-Lite0's
/// pointwise convolutions), in GFLOP/s.
struct BenchGEMM: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gemm",
        abstract: "Time the matrix products of a LeNet training step (batch 128), or EfficientNet-Lite0's pointwise convolutions, and print GFLOP/s."
    )

    /// Which products to time.
    enum ShapeSet: String, ExpressibleByArgument, CaseIterable {
        case lenet, efficientnet, resnet18
    }

    @Option(help: "The products: lenet (a training step), efficientnet (its pointwise convolutions, one picture) or resnet18 (its convolutions, one picture).")
    var shapes: ShapeSet = .lenet

    @Option(help: "Threads to use (default: all cores).")
    var threads: Int?

    @Option(help: "Seconds to spend timing each shape.")
    var seconds = 0.5

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    /// A product C[M,N] = op(A)·op(B) and what it is for.
    struct Shape: Encodable {
        var name: String
        var transA: Bool
        var transB: Bool
        var m: Int
        var n: Int
        var k: Int
    }

    struct Result: Encodable {
        var shape: Shape
        var medianSeconds: Double
        var gflops: Double
    }

    struct Report: Encodable {
        var isa: String
        var threads: Int
        var results: [Result]
    }

    static let lenetShapes = [
        Shape(name: "dense1 forward (X·Wᵀ)", transA: false, transB: true, m: 128, n: 500, k: 1152),
        Shape(name: "dense1 input gradient (dY·W)", transA: false, transB: false, m: 128, n: 1152, k: 500),
        Shape(name: "dense1 weight gradient (dYᵀ·X)", transA: true, transB: false, m: 500, n: 1152, k: 128),
        Shape(name: "conv2 forward, one image (W·columns)", transA: false, transB: false, m: 32, n: 144, k: 128),
        Shape(name: "conv1 forward, one image (W·columns)", transA: false, transB: false, m: 32, n: 676, k: 9),
    ]

    /// EfficientNet-Lite0's pointwise convolutions, one picture (W·X): K short early, N short late.
    static let efficientNetShapes = [
        Shape(name: "EfficientNet expand 16→96 at 112×112", transA: false, transB: false, m: 96, n: 12544, k: 16),
        Shape(name: "EfficientNet project 96→24 at 56×56", transA: false, transB: false, m: 24, n: 3136, k: 96),
        Shape(name: "EfficientNet expand 24→144 at 56×56", transA: false, transB: false, m: 144, n: 3136, k: 24),
        Shape(name: "EfficientNet expand 80→480 at 14×14", transA: false, transB: false, m: 480, n: 196, k: 80),
        Shape(name: "EfficientNet project 480→80 at 14×14", transA: false, transB: false, m: 80, n: 196, k: 480),
        Shape(name: "EfficientNet expand 192→1152 at 7×7", transA: false, transB: false, m: 1152, n: 49, k: 192),
        Shape(name: "EfficientNet project 1152→192 at 7×7", transA: false, transB: false, m: 192, n: 49, k: 1152),
    ]

    /// ResNet-18's convolutions at 224×224, one picture (W·columns): each distinct product once.
    static let resnet18Shapes = [
        Shape(name: "ResNet-18 conv1 7×7/2 3→64 at 112×112", transA: false, transB: false, m: 64, n: 12544, k: 147),
        Shape(name: "ResNet-18 3×3 64→64 at 56×56", transA: false, transB: false, m: 64, n: 3136, k: 576),
        Shape(name: "ResNet-18 3×3 128→128 at 28×28", transA: false, transB: false, m: 128, n: 784, k: 1152),
        Shape(name: "ResNet-18 3×3 256→256 at 14×14", transA: false, transB: false, m: 256, n: 196, k: 2304),
        Shape(name: "ResNet-18 3×3 512→512 at 7×7", transA: false, transB: false, m: 512, n: 49, k: 4608),
        Shape(name: "ResNet-18 1×1/2 256→512 at 7×7", transA: false, transB: false, m: 512, n: 49, k: 256),
    ]

    func validate() throws {
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1, got \(threads)") }
        if !(seconds > 0 && seconds <= 60) { throw ValidationError("--seconds must be in (0, 60], got \(seconds)") }
    }

    func run() throws {
        if let threads { OpenCoreMLRuntime.threadCount = threads }
        var results: [Result] = []
        let products: [Shape]
        switch shapes {
        case .lenet: products = Self.lenetShapes
        case .efficientnet: products = Self.efficientNetShapes
        case .resnet18: products = Self.resnet18Shapes
        }
        for shape in products {
            let median = OpenCoreMLRuntime.timeMatrixProduct(
                m: shape.m, n: shape.n, k: shape.k, transposeA: shape.transA, transposeB: shape.transB, seconds: seconds)
            results.append(Result(shape: shape, medianSeconds: median, gflops: 2.0 * Double(shape.m * shape.n * shape.k) / median / 1e9))
        }
        let report = Report(isa: OpenCoreMLRuntime.instructionSet.rawValue, threads: OpenCoreMLRuntime.threadCount, results: results)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
            return
        }
        print("GEMM, \(report.isa), \(report.threads) thread(s); median of repeated runs")
        var table = TextTable(["shape", "M×N×K", "median", "GFLOP/s"], alignments: [.left, .left, .right, .right])
        for result in results {
            let s = result.shape
            table.append([s.name, "\(s.m)×\(s.n)×\(s.k)", String(format: "%.1f µs", result.medianSeconds * 1e6), String(format: "%.1f", result.gflops)])
        }
        print(table.render())
    }
}
