import CoreMLSpec
import Foundation
import OpenCoreML
import Testing
import _OpenCoreMLTestSupport

/// Networks whose blobs keep Core ML's ranks: exact-mapped inputs through classic layers into
/// rank-N layers (coremltools' `convert_to="neuralnetwork"` heads), softmaxND into cross-entropy,
/// rank-4 image mapping, and training refused through a layer that passes no gradient.
@Suite("Rank-keeping networks")
struct RankKeepingNetworkTests {
    /// `x` (`inputShape`, exact mapping) → innerProduct 'fc' (4 → 3) → softmaxND 'sm' (axis −1) → `probs`.
    static func head(inputShape: [Int64], updatable: Bool = false) -> CoreML_Specification_Model {
        var model = CoreML_Specification_Model()
        model.specificationVersion = 4
        model.description_p.input = [TestSpecs.array("x", inputShape)]
        model.description_p.output = [TestSpecs.array("probs", Array(inputShape.dropLast()) + [3])]
        var fc = CoreML_Specification_InnerProductLayerParams()
        fc.inputChannels = 4
        fc.outputChannels = 3
        fc.hasBias_p = true
        fc.weights = TestSpecs.weights([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0], updatable: updatable)
        fc.bias = TestSpecs.weights([0, 0, 0], updatable: updatable)
        model.neuralNetwork.arrayInputShapeMapping = .exactArrayMapping
        model.neuralNetwork.layers = [
            TestSpecs.layer("fc", ["x"], ["logits"]) { $0.innerProduct = fc; $0.isUpdatable = updatable },
            TestSpecs.layer("sm", ["logits"], ["probs"]) { $0.softmaxNd.axis = -1 },
        ]
        return model
    }

    static func array(_ values: [Float], shape: [Int]) throws -> MLMultiArray {
        let array = try MLMultiArray(shape: shape.map { NSNumber(value: $0) }, dataType: .float32)
        for (index, value) in values.enumerated() { array[index] = NSNumber(value: value) }
        return array
    }

    static func softmax(_ values: [Float]) -> [Float] {
        let top = values.max() ?? 0
        let e = values.map { Foundation.exp($0 - top) }
        let sum = e.reduce(0, +)
        return e.map { $0 / sum }
    }

    @Test func innerProductIntoSoftmaxNDNormalizesTheClasses() throws {
        let model = try MLModel(specification: Self.head(inputShape: [1, 4]))
        let x = try Self.array([1, 2, 3, 4], shape: [1, 4])
        let output = try model.prediction(from: MLDictionaryFeatureProvider(dictionary: ["x": x]))
        let probs = try #require(output.featureValue(for: "probs")?.multiArrayValue)
        #expect(probs.shape == [1, 3])
        let expected = Self.softmax([1, 2, 3])
        for index in 0..<3 { #expect(abs(probs[index].floatValue - expected[index]) < 1e-5) }
    }

    /// Examples of 4 values whose class is the index of the largest of the first three.
    static func trainingData(inputShape: [Int], count: Int) throws -> MLArrayBatchProvider {
        var random = TestRandom(seed: 5)
        var examples: [MLFeatureProvider] = []
        for _ in 0..<count {
            let values = random.floats(4, -1, 1)
            let label = Int64(values.prefix(3).indices.max(by: { values[$0] < values[$1] })!)
            examples.append(try MLDictionaryFeatureProvider(dictionary: [
                "x": MLFeatureValue(multiArray: try array(values, shape: inputShape)), "target": MLFeatureValue(int64: label),
            ]))
        }
        return MLArrayBatchProvider(array: examples)
    }

    static func updatableHead(inputShape: [Int64]) -> CoreML_Specification_Model {
        var model = head(inputShape: inputShape, updatable: true)
        // Start from weights that know nothing.
        model.neuralNetwork.layers[0].innerProduct.weights = TestSpecs.weights(count: 12, updatable: true)
        var loss = CoreML_Specification_LossLayer()
        loss.name = "loss"
        loss.categoricalCrossEntropyLossLayer.input = "probs"
        loss.categoricalCrossEntropyLossLayer.target = "target"
        model.neuralNetwork.updateParams.lossLayers = [loss]
        model.neuralNetwork.updateParams.optimizer.sgdOptimizer.learningRate.defaultValue = 0.5
        model.neuralNetwork.updateParams.optimizer.sgdOptimizer.miniBatchSize.defaultValue = 8
        model.neuralNetwork.updateParams.epochs.defaultValue = 20
        model.description_p.trainingInput = [TestSpecs.array("x", inputShape), TestSpecs.feature("target") { $0.int64Type = .init() }]
        model.isUpdatable = true
        return model
    }

    @Test(arguments: [[1, 4], [4]] as [[Int64]])
    func softmaxNDIntoCrossEntropyTrains(inputShape: [Int64]) async throws {
        let specification = Self.updatableHead(inputShape: inputShape)
        #expect(specification.validationIssues().isEmpty)
        let model = try MLModel(specification: specification)
        let shape = inputShape.map(Int.init)
        let data = try Self.trainingData(inputShape: shape, count: 64)
        let trained = try await model.update(with: data)
        var correct = 0
        for index in 0..<data.count {
            let example = data.features(at: index)
            let output = try await trained.prediction(from: MLDictionaryFeatureProvider(dictionary: ["x": example.featureValue(for: "x")!]))
            let probs = try #require(output.featureValue(for: "probs")?.multiArrayValue)
            let predicted = (0..<3).max(by: { probs[$0].floatValue < probs[$1].floatValue })!
            if Int64(predicted) == example.featureValue(for: "target")!.int64Value { correct += 1 }
        }
        #expect(correct >= 56, "\(correct) of 64 right after training")
    }

    @Test func trainingThroughALayerThatPassesNoGradientIsRefused() async throws {
        // x [3] → innerProduct 'fc' (updatable, 3 → 1) → embedding 'embed' → softmax → cross-entropy:
        // the embedding's indices get no gradient, so 'fc' could never learn.
        var model = HostileModels.updatable()
        model.neuralNetwork.layers[0].innerProduct.outputChannels = 1
        model.neuralNetwork.layers[0].innerProduct.weights = TestSpecs.weights([0.5, 0.5, 0.5], updatable: true)
        model.neuralNetwork.layers[0].innerProduct.bias = TestSpecs.weights([0], updatable: true)
        var embedding = CoreML_Specification_EmbeddingLayerParams()
        embedding.inputDim = 4
        embedding.outputChannels = 2
        embedding.weights = TestSpecs.weights(count: 8)
        model.neuralNetwork.layers.insert(TestSpecs.layer("embed", ["logits"], ["embedded"]) { $0.embedding = embedding }, at: 1)
        model.neuralNetwork.layers[2].input = ["embedded"]
        #expect(model.validationIssues().isEmpty)
        let data = MLArrayBatchProvider(array: [
            try MLDictionaryFeatureProvider(dictionary: ["x": MLFeatureValue(multiArray: try Self.array([1, 1, 0], shape: [3])), "target": MLFeatureValue(int64: 1)]),
        ])
        let mlModel = try MLModel(specification: model)
        // Prediction is unaffected.
        _ = try await mlModel.prediction(from: data.features(at: 0))
        do {
            _ = try await mlModel.update(with: data)
            Issue.record("training through the embedding should be refused")
        } catch {
            let message = "\(error)"
            #expect(message.contains("layer 'embed' (embedding)"), "\(message)")
            #expect(message.contains("updatable layer 'dense' (innerProduct)"), "\(message)")
        }
        // MLUpdateTask reports the same error.
        let done = DispatchSemaphore(value: 0)
        final class Box: @unchecked Sendable { var error: Error? }
        let box = Box()
        let task = MLUpdateTask(model: mlModel, trainingData: data, progressHandlers: MLUpdateProgressHandlers(
            forEvents: [], progressHandler: nil, completionHandler: { context in box.error = context.task.error; done.signal() }))
        task.resume()
        _ = done.wait(timeout: .now() + 60)
        #expect("\(box.error.map { "\($0)" } ?? "no error")".contains("layer 'embed' (embedding)"))
    }

    #if !canImport(CoreVideo)
    @Test func rank4ImageMappingPutsChannelsOnAxisOne() throws {
        // A 2×1 RGB image → softmaxND over axis 1: the channels under RANK4_IMAGE_MAPPING ([1, 3, 1, 2]).
        var model = CoreML_Specification_Model()
        model.specificationVersion = 4
        model.description_p.input = [TestSpecs.feature("image") {
            $0.imageType.width = 2
            $0.imageType.height = 1
            $0.imageType.colorSpace = .rgb
        }]
        model.description_p.output = [TestSpecs.array("y", [1, 3, 1, 2])]
        model.neuralNetwork.imageInputShapeMapping = .rank4ImageMapping
        model.neuralNetwork.layers = [TestSpecs.layer("sm", ["image"], ["y"]) { $0.softmaxNd.axis = 1 }]
        #expect(model.validationIssues().isEmpty)
        var made: CVPixelBuffer?
        #expect(CVPixelBufferCreate(nil, 2, 1, kCVPixelFormatType_32BGRA, nil, &made) == kCVReturnSuccess)
        let buffer = try #require(made)
        #expect(CVPixelBufferLockBaseAddress(buffer, []) == kCVReturnSuccess)
        let bytes = CVPixelBufferGetBaseAddress(buffer)!.assumingMemoryBound(to: UInt8.self)
        // BGRA: pixel 0 is R 1, G 2, B 3; pixel 1 is R 3, G 1, B 0.
        for (i, byte) in ([3, 2, 1, 255, 0, 1, 3, 255] as [UInt8]).enumerated() { bytes[i] = byte }
        _ = CVPixelBufferUnlockBaseAddress(buffer, [])
        let output = try MLModel(specification: model).prediction(from: MLDictionaryFeatureProvider(dictionary: ["image": MLFeatureValue(pixelBuffer: buffer)]))
        let y = try #require(output.featureValue(for: "y")?.multiArrayValue)
        #expect(y.shape == [1, 3, 1, 2])
        let first = Self.softmax([1, 2, 3]), second = Self.softmax([3, 1, 0])
        for channel in 0..<3 {
            #expect(abs(y[[0, channel, 0, 0] as [NSNumber]].floatValue - first[channel]) < 1e-5)
            #expect(abs(y[[0, channel, 0, 1] as [NSNumber]].floatValue - second[channel]) < 1e-5)
        }
    }
    #endif
}
