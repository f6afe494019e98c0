import CoreMLSpec
import Foundation
import OpenCoreML
import OpenCoreMLTools
import Testing
import _OpenCoreMLTestSupport

/// What the DSL writes beyond SwiftCoreMLTools: image inputs, preprocessing, more layers, MSE,
/// shuffling seeds, integer-labelled classifiers; and its errors.
struct DSLTests {
    /// A small network over an RGB image with every layer family the DSL adds.
    static func imageNetwork(updatable: Bool = true) -> Model {
        Model(shortDescription: "DSL layer tour") {
            Input(name: "image", shape: [3, 8, 8], featureType: .image(colorSpace: .rgb))
            Output(name: "scores", shape: [4])
            NeuralNetwork(losses: updatable ? [MSE(name: "mse", input: "scores", target: "scores_true")] : nil,
                          optimizer: updatable ? SGD(learningRateDefault: 0.05, miniBatchSizeDefault: 4, miniBatchSizeRange: [2, 4]) : nil,
                          epochDefault: updatable ? 3 : nil, epochRange: updatable ? 1...50 : nil, shuffle: true, seed: 7,
                          preprocessing: [ImagePreprocessing(featureName: "image", scale: 1 / 255, redBias: -0.5, greenBias: -0.5, blueBias: -0.5)]) {
                Convolution(name: "conv", input: ["image"], output: ["conv_out"], outputChannels: 4, kernelChannels: 3,
                            kernelSize: [3, 3], paddingType: .same(mode: .bottomRightHeavy), updatable: updatable)
                BatchNorm(name: "bn", input: ["conv_out"], output: ["bn_out"], channels: 4, updatable: updatable)
                LeakyReLu(name: "leaky", input: ["bn_out"], output: ["leaky_out"], alpha: 0.1)
                Pooling(name: "gap", input: ["leaky_out"], output: ["gap_out"], poolingType: .average, kernelSize: [], stride: [], globalPooling: true)
                Tanh(name: "tanh", input: ["gap_out"], output: ["tanh_out"])
                Concat(name: "concat", input: ["gap_out", "tanh_out"], output: ["concat_out"])
                InnerProduct(name: "dense", input: ["concat_out"], output: ["dense_out"], inputChannels: 8, outputChannels: 4, updatable: updatable)
                Add(name: "add", input: ["dense_out", "gap_out"], output: ["scores"])
            }
        }
    }

    @Test func imageInputsPreprocessingAndLayersAreWrittenAsDeclared() throws {
        let spec = try Self.imageNetwork().makeSpecification()
        try Support.export(spec, as: "dsl_layer_tour")
        let image = spec.description_p.input[0].type.imageType
        #expect(image.width == 8 && image.height == 8 && image.colorSpace == .rgb)
        let network = spec.neuralNetwork
        #expect(network.preprocessing.count == 1)
        #expect(network.preprocessing[0].scaler.channelScale == Float(1) / 255)
        #expect(network.preprocessing[0].scaler.redBias == -0.5)
        // Weight counts: 4·3·3·3 + 4, 4 channels × (γ, β, mean, variance), 4·8 + 4.
        #expect(network.layers.map(\.parameterCount) == [112, 16, 0, 0, 0, 0, 36, 0])
        #expect(network.layers[0].convolution.same.asymmetryMode == .bottomRightHeavy)
        #expect(network.layers[1].batchnorm.gamma.floatValue == [1, 1, 1, 1] && network.layers[1].batchnorm.variance.floatValue == [1, 1, 1, 1])
        #expect(network.layers[1].batchnorm.gamma.isUpdatable && network.layers[1].batchnorm.mean.isUpdatable)
        #expect(network.layers[2].activation.leakyReLu.alpha == 0.1)
        #expect(network.layers[3].pooling.globalPooling && network.layers[3].pooling.type == .average)
        #expect(network.layers[5].input == ["gap_out", "tanh_out"])
        #expect(network.layers[7].add.alpha == 0)
        // Updatable with MSE: the training inputs are the image and a target shaped like the output.
        #expect(spec.isUpdatable)
        #expect(spec.description_p.trainingInput.map(\.name) == ["image", "scores_true"])
        #expect(spec.description_p.trainingInput[1].type.multiArrayType.shape == [4])
        let update = network.updateParams
        #expect(update.lossLayers[0].meanSquaredErrorLossLayer.target == "scores_true")
        #expect(update.optimizer.sgdOptimizer.miniBatchSize.set.values == [2, 4])
        #expect(update.epochs.range.minValue == 1 && update.epochs.range.maxValue == 50)
        #expect(update.seed.defaultValue == 7 && update.shuffle.defaultValue)
        #expect(spec.validationIssues().isEmpty)
    }

    @Test func lstmAndEmbeddingCarryTheirWeights() throws {
        let spec = try Model {
            Input(name: "tokens", shape: [1])
            Output(name: "summary", shape: [6])
            NeuralNetwork {
                Embedding(name: "embed", input: ["tokens"], output: ["vectors"], inputDim: 20, outputChannels: 5)
                UniDirectionalLstm(name: "lstm", input: ["vectors"], output: ["summary", "h", "c"], inputVectorSize: 5, outputVectorSize: 6)
            }
        }.makeSpecification()
        try Support.export(spec, as: "dsl_lstm")
        let layers = spec.neuralNetwork.layers
        #expect(layers[0].parameterCount == 100)
        // Four input matrices 6×5, four recurrent 6×6, four biases of 6.
        #expect(layers[1].parameterCount == 4 * 30 + 4 * 36 + 4 * 6)
        let lstm = layers[1].uniDirectionalLstm
        #expect(lstm.weightParams.forgetGateBiasVector.floatValue == [Float](repeating: 1, count: 6))
        #expect(lstm.activations.count == 3)
        #expect(!spec.isUpdatable && spec.description_p.trainingInput.isEmpty)
    }

    @Test func integerLabelledClassifierPredictsThroughOpenCoreML() throws {
        let model = Model(shortDescription: "Digits 0, 1, 2") {
            Input(name: "x", shape: [2])
            ClassLabels([0, 1, 2], predictedFeatureName: "digit", predictedProbabilitiesName: "digitProbability")
            NeuralNetwork {
                InnerProduct(name: "dense", input: ["x"], output: ["logits"], weight: [1, 0, 0, 1, -1, -1], bias: [0, 0, 0],
                             inputChannels: 2, outputChannels: 3)
                Softmax(name: "softmax", input: ["logits"], output: ["probabilities"])
            }
        }
        let spec = try model.makeSpecification()
        try Support.export(spec, as: "dsl_int64_classifier")
        #expect(spec.neuralNetworkClassifier.int64ClassLabels.vector == [0, 1, 2])
        #expect(spec.neuralNetworkClassifier.labelProbabilityLayerName == "probabilities")
        #expect(spec.description_p.output.map(\.name) == ["digitProbability", "digit"])
        #expect(spec.description_p.predictedFeatureName == "digit")

        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("digits.mlmodel")
            try model.coreMLData!.write(to: url)
            let loaded = try MLModel(contentsOf: url)
            let result = try loaded.prediction(from: MLDictionaryFeatureProvider(featureValues: ["x": Support.array([0.2, 3], shape: [2])]))
            #expect(result.featureValue(for: "digit")?.int64Value == 1)
            // softmax([0.2, 3, −3.2]) by hand.
            let p = Support.softmax([0.2, 3, -3.2])
            let dictionary = result.featureValue(for: "digitProbability")!.dictionaryValue
            #expect(abs(dictionary[Int64(1)]!.floatValue - p[1]) < 1e-5)
        }
    }

    @Test func controlFlowInsideTheBuilders() throws {
        let widths: [UInt] = [6, 5, 4]
        let spec = try Model {
            Input(name: "x", shape: [widths[0]])
            if widths.count > 5 { Output(name: "never", shape: [1]) } else { Output(name: "y", shape: [widths.last!]) }
            NeuralNetwork {
                for (index, pair) in zip(widths, widths.dropFirst()).enumerated() {
                    InnerProduct(name: "dense\(index)", input: [index == 0 ? "x" : "act\(index - 1)"],
                                 output: [index == widths.count - 2 ? "y" : "dense\(index)_out"], inputChannels: pair.0, outputChannels: pair.1)
                    if index < widths.count - 2 { Sigmoid(name: "act\(index)", input: ["dense\(index)_out"], output: ["act\(index)"]) }
                }
            }
        }.makeSpecification()
        #expect(spec.neuralNetwork.layers.map(\.name) == ["dense0", "act0", "dense1"])
        #expect(spec.neuralNetwork.layers.map(\.parameterCount) == [6 * 5 + 5, 0, 5 * 4 + 4])
    }

    @Test func badDeclarationsNameWhatAndWhere() throws {
        func message(_ model: Model) -> String {
            #expect(model.coreMLData == nil)
            do {
                _ = try model.makeSpecification()
                return "no error"
            } catch {
                return "\(error)"
            }
        }
        #expect(message(Model { Input(name: "x", shape: [2]) }).contains("declare one NeuralNetwork"))
        #expect(message(Model {
            Input(name: "x", shape: [2]); Output(name: "y", shape: [3])
            NeuralNetwork { InnerProduct(name: "dense", input: ["x"], output: ["y"], weight: [1, 2], inputChannels: 2, outputChannels: 3) }
        }) == "layer 'dense': weight has 2 values, expected 6")
        #expect(message(Model {
            Input(name: "x", shape: [2]); Output(name: "y", shape: [2])
            NeuralNetwork { InnerProduct(name: "dense", input: ["nowhere"], output: ["y"], inputChannels: 2, outputChannels: 2) }
        }).contains("layer 'dense'") )
        #expect(message(Model {
            Input(name: "x", shape: [2]); Output(name: "y", shape: [2])
            NeuralNetwork(losses: [MSE(name: "loss", input: "y", target: "y_true")], optimizer: Adam(learningRateDefault: 2, miniBatchSizeDefault: 4), epochDefault: 1) {
                InnerProduct(name: "dense", input: ["x"], output: ["y"], inputChannels: 2, outputChannels: 2, updatable: true)
            }
        }) == "NeuralNetwork › optimizer › learningRate: the default 2.0 lies outside the allowed range 0.0…1.0")
        #expect(message(Model {
            Input(name: "x", shape: [2]); ClassLabels(["a", 1])
            NeuralNetwork { Softmax(name: "softmax", input: ["x"], output: ["p"]) }
        }).contains("class labels mix strings"))
        #expect(message(Model {
            Input(name: "x", shape: [3])
            KNearestNeighborsClassifier(samples: [[1, 2, 3], [1, 2]], labels: ["a", "b"])
        }) == "KNearestNeighborsClassifier: sample 1 has 2 values, expected 3")
        #expect(message(Model {
            Input(name: "image", shape: [3, 8, 8], featureType: .image(colorSpace: .grayscale))
            Output(name: "y", shape: [1])
            NeuralNetwork { Flatten(name: "flatten", input: ["image"], output: ["y"]) }
        }) == "input 'image': a grayscale image has 1 channel(s), the shape [3, 8, 8] says 3")
        #expect(message(Model {
            Input(name: "x", shape: [2]); Output(name: "y", shape: [2])
            NeuralNetwork(losses: [MSE(name: "loss", input: "y", target: "y_true")], epochDefault: 1) {
                InnerProduct(name: "dense", input: ["x"], output: ["y"], inputChannels: 2, outputChannels: 2, updatable: true)
            }
        }) == "NeuralNetwork: an updatable network needs an optimizer (SGD or Adam)")
    }
}

/// `SpecificationLayer`: every layer type the DSL has no element of its own for.
struct SpecificationLayerTests {
    /// x [2, 3, 4] (exact mapping) → transpose → sliceStatic (the last two of the first axis) →
    /// reduceMean over the last axis → y.
    static func model() -> Model {
        Model(shortDescription: "rank-N layers through SpecificationLayer") {
            Input(name: "x", shape: [2, 3, 4])
            Output(name: "y", shape: [2, 3])
            NeuralNetwork(arrayInputShapeMapping: .exactArrayMapping) {
                SpecificationLayer(name: "swap", input: ["x"], output: ["t"]) { $0.transpose.axes = [2, 1, 0] }  // [4, 3, 2]
                SpecificationLayer(name: "last two", input: ["t"], output: ["s"]) {
                    $0.sliceStatic.beginIds = [2, 0, 0]
                    $0.sliceStatic.endIds = [4, 3, 2]
                    $0.sliceStatic.strides = [1, 1, 1]
                    $0.sliceStatic.beginMasks = [false, true, true]
                    $0.sliceStatic.endMasks = [false, true, true]
                }  // [2, 3, 2]
                SpecificationLayer(name: "mean", input: ["s"], output: ["y"]) {
                    $0.reduceMean.axes = [-1]
                    $0.reduceMean.keepDims = false
                }  // [2, 3]
            }
        }
    }

    @Test func rankNLayersAreWrittenAndPredict() throws {
        let spec = try Self.model().makeSpecification()
        #expect(spec.validationIssues().isEmpty)
        #expect(spec.neuralNetwork.layers.map(\.layerTypeName) == ["transpose", "sliceStatic", "reduceMean"])
        let x = try MLMultiArray(shape: [2, 3, 4], dataType: .float32)
        for index in 0..<24 { x[index] = NSNumber(value: Float(index)) }
        let y = try #require(try MLModel(specification: spec).prediction(from: MLDictionaryFeatureProvider(dictionary: ["x": x]))
            .featureValue(for: "y")?.multiArrayValue)
        // t[w, h, c] = x[c, h, w]; s keeps w = 2, 3; y[w', h] = mean over c of x[c, h, w' + 2].
        var expected: [Float] = []
        for w in 2..<4 { for h in 0..<3 { expected.append((Float(h * 4 + w) + Float(12 + h * 4 + w)) / 2) } }
        #expect(y.shape == [2, 3])
        #expect((0..<6).map { y[$0].floatValue } == expected)
    }

    @Test func weightsOfTheWrongSizeAndTypesThatCannotTrainAreErrors() throws {
        let short = SpecificationLayer(name: "dense", input: ["x"], output: ["y"]) {
            $0.innerProduct.inputChannels = 4
            $0.innerProduct.outputChannels = 2
            $0.innerProduct.weights.floatValue = [1, 2, 3]
        }
        #expect(throws: ModelToolsError.self) { _ = try short.layerSpecification() }
        let frozenType = SpecificationLayer(name: "slice", input: ["x"], output: ["y"], updatable: true) { $0.sliceStatic.beginIds = [0] }
        #expect(throws: ModelToolsError.self) { _ = try frozenType.layerSpecification() }
        let untyped = SpecificationLayer(name: "nothing", input: ["x"], output: ["y"]) { _ in }
        #expect(throws: ModelToolsError.self) { _ = try untyped.layerSpecification() }
        let trained = try SpecificationLayer(name: "dense", input: ["x"], output: ["y"], updatable: true) {
            $0.innerProduct.inputChannels = 2
            $0.innerProduct.outputChannels = 1
            $0.innerProduct.weights.floatValue = [1, 2]
        }.layerSpecification()
        #expect(trained.isUpdatable && trained.innerProduct.weights.isUpdatable)
    }
}
