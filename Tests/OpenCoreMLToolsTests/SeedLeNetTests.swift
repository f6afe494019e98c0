import CoreMLSpec
import Foundation
import OpenCoreML
import Testing
import _OpenCoreMLTestSupport

/// The seeds' LeNet declaration compiles against OpenCoreMLTools, writes a valid model, loads in
/// OpenCoreML and trains on device.
struct SeedLeNetTests {
    /// Two kinds of 28×28 images: a bright bar in the top half (class 3) or in the bottom half (class 7).
    static func examples(count: Int, seed: UInt64) -> [(image: [Float], label: Int32)] {
        var random = TestRandom(seed: seed)
        return (0..<count).map { index in
            let top = index % 2 == 0
            var image = (0..<784).map { _ in random.float(0, 0.1) }
            let row = (top ? 4 : 18) + random.int(0..<6)
            for r in row..<(row + 4) { for c in 4..<24 { image[r * 28 + c] = random.float(0.8, 1) } }
            return (image, top ? 3 : 7)
        }
    }

    static func meanCrossEntropy(_ model: MLModel, _ examples: [(image: [Float], label: Int32)]) throws -> Double {
        var total = 0.0
        for example in examples {
            let p = try Support.output(of: model, ["image": Support.array(example.image, shape: [1, 28, 28])], "output")
            total -= log(Double(max(p[Int(example.label)], 1e-12)))
        }
        return total / Double(examples.count)
    }

    @Test func seedDeclarationWritesTheLeNetTheArticleDescribes() throws {
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("MNIST-Trainable.mlmodel")
            SeedLeNetDeclaration(epoch: 2, coreMLModelUrl: url).prepareModel()
            let spec = try CoreML_Specification_Model(contentsOf: url)
            try spec.validate()
            try Support.export(spec, as: "seed_lenet")

            #expect(spec.specificationVersion == 4)
            #expect(spec.isUpdatable)
            #expect(spec.description_p.metadata.author == "Jacopo Mangiavacchi")
            #expect(spec.description_p.metadata.userDefined == ["SwiftCoremltoolsVersion": "0.0.12"])
            #expect(spec.description_p.input.map(\.name) == ["image"])
            #expect(spec.description_p.input[0].type.multiArrayType.shape == [1, 28, 28])
            #expect(spec.description_p.output[0].type.multiArrayType.shape == [10])
            #expect(spec.description_p.trainingInput.map(\.name) == ["image", "output_true"])
            #expect(spec.description_p.trainingInput[1].type.multiArrayType.dataType == .int32)

            // The article's Keras summary: 320, 4,128, 576,500 and 5,010 parameters, 585,958 in all.
            let layers = spec.neuralNetwork.layers
            #expect(layers.map(\.name) == ["conv1", "relu1", "pooling1", "conv2", "relu2", "pooling2", "flatten1",
                                           "hidden1", "relu3", "hidden2", "softmax"])
            #expect(layers.map(\.parameterCount) == [320, 0, 0, 4128, 0, 0, 0, 576_500, 0, 5010, 0])
            #expect(layers.filter(\.isUpdatable).map(\.name) == ["conv1", "conv2", "hidden1", "hidden2"])
            #expect(layers[6].flatten.mode == .channelLast)
            #expect(layers[0].convolution.valid.paddingAmounts.borderAmounts.count == 2)
            // Glorot-uniform weights: within ±√(6 / (fanIn + fanOut)), not all zero.
            let conv1 = layers[0].convolution.weights.floatValue
            #expect(conv1.allSatisfy { abs($0) <= Float((6.0 / Double(9 + 32 * 9)).squareRoot()) })
            #expect(Set(conv1).count == 288)

            let update = spec.neuralNetwork.updateParams
            #expect(update.lossLayers[0].categoricalCrossEntropyLossLayer.target == "output_true")
            #expect(update.optimizer.adamOptimizer.learningRate.defaultValue == 0.0001)
            #expect(update.optimizer.adamOptimizer.learningRate.range.maxValue == 0.3)
            #expect(update.optimizer.adamOptimizer.miniBatchSize.set.values == [128])
            #expect(update.optimizer.adamOptimizer.eps.range.maxValue == 1e-8)
            #expect(update.epochs.defaultValue == 2 && update.epochs.set.values == [2])
            #expect(update.shuffle.defaultValue)

            // The same declaration gives the same bytes (weights are seeded by layer name).
            let again = folder.appendingPathComponent("again.mlmodel")
            SeedLeNetDeclaration(epoch: 2, coreMLModelUrl: again).prepareModel()
            #expect(try Data(contentsOf: url) == Data(contentsOf: again))
        }
    }

    @Test func seedModelLoadsAndTrainsWithMLUpdateTask() throws {
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("MNIST-Trainable.mlmodel")
            SeedLeNetDeclaration(epoch: 3, coreMLModelUrl: url).prepareModel()
            let model = try MLModel(contentsOf: url)
            #expect(model.modelDescription.inputDescriptionsByName["image"]?.multiArrayConstraint?.shape == [1, 28, 28])

            let train = Self.examples(count: 256, seed: 5)
            let before = try Self.meanCrossEntropy(model, Array(train.prefix(64)))
            let providers: [MLFeatureProvider] = train.map { example in
                let label = try! MLMultiArray(shape: [1], dataType: .int32)
                label[0] = NSNumber(value: example.label)
                return MLDictionaryFeatureProvider(featureValues: [
                    "image": Support.array(example.image, shape: [1, 28, 28]), "output_true": MLFeatureValue(multiArray: label),
                ])
            }
            let (trained, losses) = try Support.train(url, on: providers, parameters: [.learningRate: 0.002])
            let after = try Self.meanCrossEntropy(trained, Array(train.prefix(64)))
            #expect(losses.count == 3)
            #expect(losses.last! < losses.first!, "epoch losses \(losses)")
            #expect(after < before * 0.5, "cross-entropy before \(before), after \(after)")
        }
    }
}
