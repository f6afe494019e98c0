import CoreMLSpec
import Foundation
import OpenCoreML
import Testing
import _OpenCoreMLTestSupport

/// Updatable networks whose layers before the updatable ones are types the training engine does not
/// run (they predict as an ML Program): those layers are computed once per example, and training
/// gives exactly what training on their outputs gives.
@Suite("Training after layers the training engine lacks")
struct FrozenPrefixTrainingTests {
    typealias Layer = CoreML_Specification_NeuralNetworkLayer

    /// `input` (`inputShape`) → `prefix` layers → flatten → innerProduct 'fc' (updatable, 32 → 3)
    /// → softmax → `probs`, cross-entropy against `target`, SGD.
    static func model(input: String, inputShape: [Int64], prefix: [Layer], flattenInput: String) -> CoreML_Specification_Model {
        var model = CoreML_Specification_Model()
        model.specificationVersion = 4
        model.description_p.input = [TestSpecs.array(input, inputShape)]
        model.description_p.output = [TestSpecs.array("probs", [3])]
        var fc = CoreML_Specification_InnerProductLayerParams()
        fc.inputChannels = 32
        fc.outputChannels = 3
        fc.hasBias_p = true
        var random = TestRandom(seed: 3)
        fc.weights = TestSpecs.weights(random.floats(96, -0.1, 0.1), updatable: true)
        fc.bias = TestSpecs.weights([0, 0, 0], updatable: true)
        model.neuralNetwork.layers = prefix + [
            TestSpecs.layer("flat", [flattenInput], ["flat"]) { $0.flatten.mode = .channelFirst },
            TestSpecs.layer("fc", ["flat"], ["logits"]) { $0.innerProduct = fc; $0.isUpdatable = true },
            TestSpecs.layer("sm", ["logits"], ["probs"]) { $0.softmax = .init() },
        ]
        var loss = CoreML_Specification_LossLayer()
        loss.name = "loss"
        loss.categoricalCrossEntropyLossLayer.input = "probs"
        loss.categoricalCrossEntropyLossLayer.target = "target"
        model.neuralNetwork.updateParams.lossLayers = [loss]
        model.neuralNetwork.updateParams.optimizer.sgdOptimizer.learningRate.defaultValue = 0.3
        model.neuralNetwork.updateParams.optimizer.sgdOptimizer.miniBatchSize.defaultValue = 8
        model.neuralNetwork.updateParams.epochs.defaultValue = 6
        model.neuralNetwork.updateParams.shuffle.defaultValue = true
        model.description_p.trainingInput = [TestSpecs.array(input, inputShape), TestSpecs.feature("target") { $0.int64Type = .init() }]
        model.isUpdatable = true
        return model
    }

    /// x [3, 4, 4] → classic `slice` of channels 0..<2 (no training node) → the updatable head.
    static let sliced = model(input: "x", inputShape: [3, 4, 4], prefix: [
        TestSpecs.layer("pick", ["x"], ["picked"]) {
            $0.slice.axis = .channelAxis
            $0.slice.startIndex = 0
            $0.slice.endIndex = 2
            $0.slice.stride = 1
        },
    ], flattenInput: "picked")
    /// The same head on the two channels given directly.
    static let reference = model(input: "picked", inputShape: [2, 4, 4], prefix: [], flattenInput: "picked")

    static func examples(count: Int, sliced: Bool) throws -> MLArrayBatchProvider {
        var random = TestRandom(seed: 9)
        return MLArrayBatchProvider(array: try (0..<count).map { _ in
            let values = random.floats(48, -1, 1)
            // The class: which quarter of the first channel holds its largest value, capped at 2.
            let label = Int64(min(2, values.prefix(16).indices.max(by: { values[$0] < values[$1] })! / 4))
            let kept = sliced ? Array(values.prefix(32)) : values
            let array = try MLMultiArray(shape: (sliced ? [2, 4, 4] : [3, 4, 4]).map { NSNumber(value: $0) }, dataType: .float32)
            for (index, value) in kept.enumerated() { array[index] = NSNumber(value: value) }
            return try MLDictionaryFeatureProvider(dictionary: [sliced ? "picked" : "x": MLFeatureValue(multiArray: array), "target": MLFeatureValue(int64: label)])
        })
    }

    static func weights(_ model: MLModel) throws -> [Float] {
        let array = try #require(try model.parameterValue(for: MLParameterKey.weights.scoped(to: "fc")) as? MLMultiArray)
        return (0..<array.count).map { array[$0].floatValue }
    }

    @Test func trainingAfterALoweredLayerEqualsTrainingOnItsOutputs() async throws {
        #expect(Self.sliced.validationIssues().isEmpty)
        let full = try MLModel(specification: Self.sliced)
        let before = try Self.weights(full)
        let trained = try await full.update(with: Self.examples(count: 40, sliced: false))
        let expected = try await MLModel(specification: Self.reference).update(with: Self.examples(count: 40, sliced: true))
        let (got, want) = (try Self.weights(trained), try Self.weights(expected))
        #expect(got != before, "training changed nothing")
        #expect(zip(got, want).allSatisfy { abs($0 - $1) <= 1e-6 }, "largest difference \(zip(got, want).map { abs($0 - $1) }.max() ?? 0)")
        // The trained model still predicts through its slice.
        let example = try Self.examples(count: 1, sliced: false).features(at: 0)
        let output = try await trained.prediction(from: MLDictionaryFeatureProvider(dictionary: ["x": example.featureValue(for: "x")!]))
        let probs = try #require(output.featureValue(for: "probs")?.multiArrayValue)
        #expect(abs((0..<3).map { probs[$0].floatValue }.reduce(0, +) - 1) < 1e-5)
    }

    /// A side branch the engine lacks (an extra output of its own) trains the rest as if it were not there.
    @Test func aSideBranchOfLoweredLayersDoesNotStopTraining() async throws {
        var spec = Self.reference
        spec.neuralNetwork.layers.append(TestSpecs.layer("side", ["picked"], ["side"]) {
            $0.slice.axis = .channelAxis
            $0.slice.startIndex = 0
            $0.slice.endIndex = 1
            $0.slice.stride = 1
        })
        spec.description_p.output.append(TestSpecs.array("side", []))
        let trained = try await MLModel(specification: spec).update(with: Self.examples(count: 40, sliced: true))
        let expected = try await MLModel(specification: Self.reference).update(with: Self.examples(count: 40, sliced: true))
        let (got, want) = (try Self.weights(trained), try Self.weights(expected))
        #expect(zip(got, want).allSatisfy { abs($0 - $1) <= 1e-6 })
    }

    /// The prefix's outputs, held for the whole update, draw from the configuration's memory limit.
    @Test func thePrefixOutputsRespectTheMemoryLimit() async throws {
        let configuration = MLModelConfiguration()
        configuration.memoryLimit = 64 * 1024
        let model = try MLModel(specification: Self.sliced, configuration: configuration)
        await #expect {
            _ = try await model.update(with: Self.examples(count: 600, sliced: false))
        } throws: { error in (error as? MLModelError)?.code == .update && "\(error)".contains("before the updatable ones need more than the memory limit") }
    }

    @Test func aLayerWithoutBackwardAfterTheUpdatableOneIsRefusedByName() async throws {
        // The slice moves after the updatable layer: gradients would have to pass through it.
        var spec = Self.reference
        spec.neuralNetwork.layers.insert(TestSpecs.layer("pick", ["logits"], ["picked logits"]) {
            $0.slice.axis = .channelAxis
            $0.slice.startIndex = 0
            $0.slice.endIndex = 3
            $0.slice.stride = 1
        }, at: 2)
        spec.neuralNetwork.layers[3].input = ["picked logits"]
        let model = try MLModel(specification: spec)
        await #expect {
            _ = try await model.update(with: Self.examples(count: 8, sliced: true))
        } throws: { error in
            let message = "\(error)"
            return (error as? MLModelError)?.code == .update && message.contains("'pick'") && message.contains("slice")
        }
    }
}
