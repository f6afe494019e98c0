import CoreMLSpec
import Foundation
@testable import OpenCoreML
import Testing
import _OpenCoreMLEngine
import _OpenCoreMLTestSupport

/// `predictions(fromBatch:)` on a classic neural network runs a batch of several passes per thread
/// with each pass end to end on one thread (a copy of the network per thread). The outputs must be
/// the very same floats as the passes run one after the other with all threads on every layer:
/// the kernels split a picture's work by the configured thread count, not by the threads running.
/// (With the instruction set and the thread count held still: other modules' tests switch them.)
@Suite("Batch passes on separate threads")
struct BatchPassThreadsTests {
    static func leNet() throws -> CoreML_Specification_Model {
        try CoreML_Specification_Model(serializedModel: Data(contentsOf: Fixtures.url("lenet_updatable.mlmodel")))
    }

    static func leNetExamples(_ count: Int, seed: UInt64) throws -> [MLFeatureProvider] {
        var random = TestRandom(seed: seed)
        return try (0..<count).map { _ in
            let image = try MLMultiArray(shape: [1, 28, 28], dataType: .float32)
            for index in 0..<image.count { image[index] = NSNumber(value: random.float(0, 1)) }
            return try MLDictionaryFeatureProvider(dictionary: ["image": image])
        }
    }

    /// Every output of every example, as raw float bits.
    static func bits(_ results: [MLFeatureProvider], name: String) -> [[UInt32]] {
        results.map { $0.featureValue(for: name)!.multiArrayValue!.floatValues().map(\.bitPattern) }
    }

    @Test func separateThreadsGiveTheSameFloatsAsAllThreadsPerLayer() throws {
        try withKernelSettingsHeld {
            let specification = try Self.leNet()
            // 4 passes of 64 and one of 8: at least two passes per thread on two threads.
            let examples = try Self.leNetExamples(264, seed: 11)
            let threaded = try NeuralNetworkRunner(specification: specification, memoryLimit: 1 << 30)
            let layered = try NeuralNetworkRunner(specification: specification, memoryLimit: 1 << 30)
            layered.passesOnSeparateThreads = false
            let threads = OpenCoreMLRuntime.threadCount
            let first = try threaded.predictions(examples)
            let second = try threaded.predictions(examples)  // the copies reused
            let reference = try layered.predictions(examples)
            #expect(first.count == 264 && reference.count == 264)
            if threads > 1 { #expect(threaded.hasThreadCopies) }
            #expect(!layered.hasThreadCopies)
            #expect(Self.bits(first, name: "output") == Self.bits(reference, name: "output"))
            #expect(Self.bits(second, name: "output") == Self.bits(reference, name: "output"))
            // Few passes (one per thread of unequal size) keep all threads on every layer.
            let few = try NeuralNetworkRunner(specification: specification, memoryLimit: 1 << 30)
            _ = try few.predictions(Array(examples.prefix(70)))
            #expect(!few.hasThreadCopies)
        }
    }

    @Test func copiesThatDoNotFitTheMemoryLimitFallBack() throws {
        try withKernelSettingsHeld {
            let specification = try Self.leNet()
            let network = try Network(model: specification)
            let passSize = network.inferencePassSize(threads: 2, limit: NeuralNetworkRunner.batchLimit)
            let passBytes = network.blobs.values.filter { !$0.isElided }.reduce(0) { $0 + 4 * $1.shape.count } * passSize
            let weightBytes = network.parameters.reduce(0) { $0 + 4 * $1.count }
            // Enough for one network's buffers, not for a second thread's buffers and weights.
            let limit = passBytes + weightBytes
            let examples = try Self.leNetExamples(4 * passSize, seed: 12)
            let runner = try NeuralNetworkRunner(specification: specification, memoryLimit: limit)
            let results = try runner.predictions(examples)
            #expect(!runner.hasThreadCopies)
            let layered = try NeuralNetworkRunner(specification: specification, memoryLimit: 1 << 30)
            layered.passesOnSeparateThreads = false
            #expect(Self.bits(results, name: "output") == Self.bits(try layered.predictions(examples), name: "output"))
        }
    }

    @Test(.enabled(if: EfficientNetTests.modelURL != nil, "convert the model first: Scripts/make-efficientnet.sh"))
    func efficientNetGivesTheSameFloatsOnSeparateThreads() throws {
        try withKernelSettingsHeld {
            let url = EfficientNetTests.modelURL!
            let specification = try CoreML_Specification_Model(serializedModel: Data(contentsOf: url))
            let constraint = try #require(MLModel(contentsOf: url).modelDescription.inputDescriptionsByName["image"]?.imageConstraint)
            let pictures = try ["picture1.png", "picture2.png"].map {
                try MLFeatureValue(imageAt: EfficientNetTests.fixtures.appendingPathComponent($0), constraint: constraint)
            }
            // Passes of 2 pictures: 4 passes, two per thread on two threads.
            let examples: [MLFeatureProvider] = try (0..<8).map { try MLDictionaryFeatureProvider(dictionary: ["image": pictures[$0 % 2]]) }
            let threaded = try NeuralNetworkRunner(specification: specification, memoryLimit: 1 << 32)
            let layered = try NeuralNetworkRunner(specification: specification, memoryLimit: 1 << 32)
            layered.passesOnSeparateThreads = false
            let results = try threaded.predictions(examples)
            let reference = try layered.predictions(examples)
            #expect(Self.bits(results, name: "features") == Self.bits(reference, name: "features"))
            #expect(Self.bits(results, name: "features")[0] == Self.bits(results, name: "features")[2])
        }
    }
}
