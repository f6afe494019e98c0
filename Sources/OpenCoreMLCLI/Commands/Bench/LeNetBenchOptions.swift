import ArgumentParser
import Foundation
import OpenCoreML
import OpenCreateML

/// The model, data and threads of the LeNet benchmarks (`bench lenet`, `lenet-inference`,
/// `update-tasks`): the seeds' LeNet built in Swift (or `--model`), on an MNIST-format folder (or
/// generated digits, which need no download).
struct LeNetBenchOptions: ParsableArguments {
    @Option(help: "A folder of MNIST-format IDX files, e.g. /usr/share/datasets/fashion-mnist (default: generated digits).")
    var data: String?

    @Option(help: "Training examples: the first N of --data (default: all), or how many digits to generate (default: 6,000).")
    var examples: Int?

    @Option(name: .customLong("test-examples"), help: "Test examples: the first N of --data's test split (default: all), or how many to generate (default: 1,000).")
    var testExamples: Int?

    @Option(help: "An updatable LeNet-shaped .mlmodel (default: the seeds' LeNet, built in Swift).")
    var model: String?

    @Option(help: "Kernel threads (default: all cores).")
    var threads: Int?

    func validate() throws {
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1, got \(threads)") }
        if let examples, examples < 1 { throw ValidationError("--examples must be at least 1, got \(examples)") }
        if let testExamples, testExamples < 1 { throw ValidationError("--test-examples must be at least 1, got \(testExamples)") }
    }

    /// Applies `--threads` to the kernels; returns the thread count in use.
    @discardableResult
    func applyThreads() -> Int {
        if let threads { OpenCoreMLRuntime.threadCount = threads }
        return OpenCoreMLRuntime.threadCount
    }

    /// The model, with `parameters` overriding its update parameters.
    func loadModel(parameters: [MLParameterKey: Any] = [:]) throws -> MLModel {
        let configuration = MLModelConfiguration()
        configuration.parameters = parameters.isEmpty ? nil : parameters
        do {
            if let model { return try MLModel(contentsOf: URL(fileURLWithPath: model), configuration: configuration) }
            return try MLModel(specification: LeNet.specification(), configuration: configuration)
        } catch {
            throw CLIError.model("\(model ?? "LeNet"): \(CLIError.wrap(error))")
        }
    }

    /// The training examples.
    func trainingSet() throws -> LabeledDataset {
        if let data {
            let all = try CLIError.wrapping { try LabeledDataset(contentsOf: URL(fileURLWithPath: data), split: .train) }
            return examples.map { all.prefix($0) } ?? all
        }
        return .generatedDigits(examples ?? 6_000, seed: 1)
    }

    /// The test examples.
    func testSet() throws -> LabeledDataset {
        if let data {
            let all = try CLIError.wrapping { try LabeledDataset(contentsOf: URL(fileURLWithPath: data), split: .test) }
            return testExamples.map { all.prefix($0) } ?? all
        }
        return .generatedDigits(testExamples ?? 1_000, seed: 2, name: "generated digits (held out)")
    }
}
