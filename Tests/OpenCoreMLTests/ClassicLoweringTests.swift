import CoreMLSpec
import Foundation
import OpenCoreML
import Testing
import _OpenCoreMLEngine
import _OpenCoreMLTestSupport

/// Classic networks written as ML Programs (`ClassicLowering`) against the classic engine, which
/// implements every one of these layers on its own (its nodes): two independent implementations of
/// each layer must agree. Then layers only the lowered form runs, against references worked out
/// here from the layers' definitions.
@Suite("Classic networks as ML Programs")
struct ClassicLoweringTests {
    typealias Layer = CoreML_Specification_NeuralNetworkLayer

    /// A `neuralNetwork` from `input` (shape `shape`) whose every layer's first output is a model output.
    static func network(input shape: [Int64], exact: Bool = false, _ layers: [Layer]) -> CoreML_Specification_Model {
        var model = CoreML_Specification_Model()
        model.specificationVersion = 4
        model.description_p.input = [TestSpecs.array("x", shape)]
        for layer in layers {
            var output = CoreML_Specification_FeatureDescription()
            output.name = layer.output[0]
            output.type.multiArrayType.dataType = .float32
            model.description_p.output.append(output)
        }
        model.neuralNetwork.layers = layers
        if exact { model.neuralNetwork.arrayInputShapeMapping = .exactArrayMapping }
        return model
    }

    static func input(_ shape: [Int], seed: UInt64, positive: Bool = false) throws -> MLFeatureProvider {
        var random = TestRandom(seed: seed)
        let values = random.floats(shape.reduce(1, *), positive ? 0.1 : -1, 1)
        let array = try MLMultiArray(shape: shape.map { NSNumber(value: $0) }, dataType: .float32)
        for (index, value) in values.enumerated() { array[index] = NSNumber(value: value) }
        return try MLDictionaryFeatureProvider(dictionary: ["x": MLFeatureValue(multiArray: array)])
    }

    /// Every output of `model` from the classic engine and from its lowered program, compared value
    /// by value (`tolerance` relative to each output's largest magnitude).
    static func expectSameOutputs(_ model: CoreML_Specification_Model, _ input: MLFeatureProvider, tolerance: Float = 1e-4,
                                  sourceLocation: SourceLocation = #_sourceLocation) throws {
        let classicRunsIt = Network.hasNodes(forEveryLayerOf: model)
        #expect(classicRunsIt, "the classic engine must run every layer here", sourceLocation: sourceLocation)
        let classic = try MLModel(specification: model).prediction(from: input)
        let lowered = try MLModel(specification: ClassicLowering.program(for: model)).prediction(from: input)
        for output in model.description_p.output {
            let a = try #require(classic.featureValue(for: output.name)?.multiArrayValue, sourceLocation: sourceLocation)
            let b = try #require(lowered.featureValue(for: output.name)?.multiArrayValue, "lowered output \(output.name)", sourceLocation: sourceLocation)
            let (x, y) = (a.floatValues(), b.floatValues())
            #expect(x.count == y.count, "output \(output.name): \(a.shape) against \(b.shape)", sourceLocation: sourceLocation)
            guard x.count == y.count else { continue }
            let scale = max(1, x.map(abs).max() ?? 0)
            let worst = zip(x, y).map { abs($0 - $1) }.max() ?? 0
            #expect(worst <= tolerance * scale, "output \(output.name) differs by \(worst)", sourceLocation: sourceLocation)
            let finite = x.allSatisfy { $0.isFinite }
            #expect(finite, "output \(output.name) is not finite", sourceLocation: sourceLocation)
        }
    }

    static func layer(_ name: String, _ inputs: [String] = ["x"], _ configure: (inout Layer) -> Void) -> Layer {
        TestSpecs.layer(name, inputs, [name], configure)
    }

    @Test func convolutionsPoolingAndPaddingAgreeWithTheClassicEngine() throws {
        var random = TestRandom(seed: 1)
        func convolution(_ name: String, groups: Int = 1, kernel: [UInt64], stride: [UInt64] = [1, 1], dilation: [UInt64] = [1, 1],
                         same: CoreML_Specification_SamePadding.SamePaddingMode? = nil, pad: [UInt64] = []) -> Layer {
            Self.layer(name) {
                $0.convolution.outputChannels = 6
                $0.convolution.kernelChannels = UInt64(4 / groups)
                $0.convolution.nGroups = UInt64(groups)
                $0.convolution.kernelSize = kernel
                $0.convolution.stride = stride
                $0.convolution.dilationFactor = dilation
                if let same {
                    $0.convolution.same.asymmetryMode = same
                } else {
                    $0.convolution.valid = .init()
                    if pad.count == 4 {
                        $0.convolution.valid.paddingAmounts.borderAmounts = [.with { $0.startEdgeSize = pad[0]; $0.endEdgeSize = pad[1] },
                                                                             .with { $0.startEdgeSize = pad[2]; $0.endEdgeSize = pad[3] }]
                    }
                }
                $0.convolution.weights = TestSpecs.weights(random.floats(6 * 4 / groups * Int(kernel[0] * kernel[1])))
                $0.convolution.hasBias_p = true
                $0.convolution.bias = TestSpecs.weights(random.floats(6))
            }
        }
        func pooling(_ name: String, _ type: CoreML_Specification_PoolingLayerParams.PoolingType, global: Bool = false,
                     _ padding: (inout CoreML_Specification_PoolingLayerParams) -> Void = { _ in }) -> Layer {
            Self.layer(name) {
                $0.pooling.type = type
                $0.pooling.kernelSize = [3, 2]
                $0.pooling.stride = [2, 2]
                $0.pooling.globalPooling = global
                padding(&$0.pooling)
            }
        }
        let model = Self.network(input: [4, 9, 8], [
            convolution("conv_same", kernel: [3, 3], same: .bottomRightHeavy),
            convolution("conv_same_top_left", kernel: [2, 2], stride: [2, 2], same: .topLeftHeavy),
            convolution("conv_padded_dilated", kernel: [3, 2], dilation: [2, 1], pad: [1, 2, 0, 1]),
            convolution("conv_grouped", groups: 2, kernel: [1, 3], stride: [2, 1]),
            pooling("max_valid", .max) { $0.valid = .init() },
            pooling("average_same", .average) { $0.same = .init() },
            pooling("average_excluding", .average) { $0.same = .init(); $0.avgPoolExcludePadding = true },
            pooling("l2_valid", .l2) { $0.valid = .init() },
            pooling("max_last_pixel", .max),
            pooling("average_last_pixel_padded", .average) { $0.includeLastPixel.paddingAmounts = [1, 1] },
            pooling("global_max", .max, global: true),
            pooling("global_average", .average, global: true),
            Self.layer("pad_constant") {
                $0.padding.constant.value = 2.5
                $0.padding.paddingAmounts.borderAmounts = [.with { $0.startEdgeSize = 1; $0.endEdgeSize = 2 }, .with { $0.startEdgeSize = 0; $0.endEdgeSize = 3 }]
            },
            Self.layer("pad_reflect") {
                $0.padding.reflection = .init()
                $0.padding.paddingAmounts.borderAmounts = [.with { $0.startEdgeSize = 2; $0.endEdgeSize = 1 }, .with { $0.startEdgeSize = 1; $0.endEdgeSize = 1 }]
            },
            Self.layer("pad_replicate") {
                $0.padding.replication = .init()
                $0.padding.paddingAmounts.borderAmounts = [.with { $0.startEdgeSize = 0; $0.endEdgeSize = 2 }, .with { $0.startEdgeSize = 3; $0.endEdgeSize = 0 }]
            },
        ])
        try Self.expectSameOutputs(model, Self.input([4, 9, 8], seed: 2))
    }

    @Test func activationsUnaryFunctionsAndNormalizationAgreeWithTheClassicEngine() throws {
        var random = TestRandom(seed: 3)
        var layers: [Layer] = []
        let activations: [(String, (inout CoreML_Specification_ActivationParams) -> Void)] = [
            ("linear", { $0.linear = .with { $0.alpha = 1.5; $0.beta = -0.25 } }),
            ("relu", { $0.reLu = .init() }),
            ("leaky", { $0.leakyReLu.alpha = 0.1 }),
            ("thresholded", { $0.thresholdedReLu.alpha = 0.2 }),
            ("prelu", { $0.preLu.alpha = TestSpecs.weights([0.1, 0.2, 0.3, 0.4]) }),
            ("tanh", { $0.tanh = .init() }),
            ("scaled_tanh", { $0.scaledTanh = .with { $0.alpha = 1.7; $0.beta = 0.6 } }),
            ("sigmoid", { $0.sigmoid = .init() }),
            ("sigmoid_hard", { $0.sigmoidHard = .with { $0.alpha = 0.3; $0.beta = 0.4 } }),
            ("elu", { $0.elu.alpha = 0.7 }),
            ("softsign", { $0.softsign = .init() }),
            ("softplus", { $0.softplus = .init() }),
            ("parametric_softplus", { $0.parametricSoftplus = .with { $0.alpha = TestSpecs.weights([1, 2, 0.5, 1.5]); $0.beta = TestSpecs.weights([0.5, 1, 2, 1]) } }),
        ]
        for (name, configure) in activations { layers.append(Self.layer(name) { configure(&$0.activation) }) }
        let unary: [(String, CoreML_Specification_UnaryFunctionLayerParams.Operation, Float)] = [
            ("sqrt", .sqrt, 0), ("rsqrt", .rsqrt, 0), ("inverse", .inverse, 0), ("power", .power, 3), ("exp", .exp, 0),
            ("log", .log, 0), ("abs", .abs, 0), ("threshold", .threshold, 0.5),
        ]
        for (name, type, alpha) in unary {
            layers.append(Self.layer("unary_\(name)") {
                $0.unary.type = type
                $0.unary.alpha = alpha
                $0.unary.scale = 2
                $0.unary.shift = 1
            })
        }
        layers += [
            Self.layer("batchnorm") {
                $0.batchnorm.channels = 4
                $0.batchnorm.epsilon = 1e-3
                $0.batchnorm.gamma = TestSpecs.weights(random.floats(4))
                $0.batchnorm.beta = TestSpecs.weights(random.floats(4))
                $0.batchnorm.mean = TestSpecs.weights(random.floats(4))
                $0.batchnorm.variance = TestSpecs.weights(random.floats(4, 0.5, 2))
            },
            Self.layer("instance_norm") {
                $0.batchnorm.channels = 4
                $0.batchnorm.epsilon = 1e-5
                $0.batchnorm.computeMeanVar = true
                $0.batchnorm.instanceNormalization = true
                $0.batchnorm.gamma = TestSpecs.weights(random.floats(4))
                $0.batchnorm.beta = TestSpecs.weights(random.floats(4))
            },
            Self.layer("l2") { $0.l2Normalize.epsilon = 1e-6 },
            Self.layer("softmax") { $0.softmax = .init() },
            Self.layer("clip") { $0.clip.minVal = -0.3; $0.clip.maxVal = 0.4 },
            Self.layer("scale") {
                $0.scale.shapeScale = [4]
                $0.scale.scale = TestSpecs.weights(random.floats(4))
                $0.scale.hasBias_p = true
                $0.scale.shapeBias = [1]
                $0.scale.bias = TestSpecs.weights([0.5])
            },
            Self.layer("bias") {
                $0.bias.shape = [4, 3, 5]
                $0.bias.bias = TestSpecs.weights(random.floats(60))
            },
        ]
        let model = Self.network(input: [4, 3, 5], layers)
        try Self.expectSameOutputs(model, Self.input([4, 3, 5], seed: 4, positive: true))
    }

    @Test func shapeLayersUpsamplingAndArithmeticAgreeWithTheClassicEngine() throws {
        var random = TestRandom(seed: 5)
        var layers: [Layer] = [
            Self.layer("nearest") { $0.upsample.scalingFactor = [2, 3] },
            Self.layer("bilinear_default") { $0.upsample.mode = .bilinear; $0.upsample.scalingFactor = [2, 2] },
            Self.layer("bilinear_corners") { $0.upsample.mode = .bilinear; $0.upsample.scalingFactor = [3, 2]; $0.upsample.linearUpsampleMode = .alignCornersTrue },
            Self.layer("bilinear_half_pixel") { $0.upsample.mode = .bilinear; $0.upsample.fractionalScalingFactor = [1.5, 2.5]; $0.upsample.linearUpsampleMode = .alignCornersFalse },
            Self.layer("flatten_first") { $0.flatten.mode = .channelFirst },
            Self.layer("flatten_last") { $0.flatten.mode = .channelLast },
            Self.layer("reshape_first") { $0.reshape.targetShape = [6, 2, 5] },
            Self.layer("reshape_last") { $0.reshape.targetShape = [6, 2, 5]; $0.reshape.mode = .channelLast },
            Self.layer("permute") { $0.permute.axis = [0, 3, 1, 2] },
            Self.layer("constant", []) { $0.loadConstant.shape = [4, 3, 5]; $0.loadConstant.data = TestSpecs.weights(random.floats(60)) },
            Self.layer("add_alpha") { $0.add.alpha = 0.75 },
            Self.layer("multiply_alpha") { $0.multiply.alpha = -2 },
            Self.layer("concat_channels", ["x", "x"]) { $0.concat = .init() },
            Self.layer("concat_sequence", ["x", "x"]) { $0.concat.sequenceConcat = true },
            Self.layer("inner_product") {
                $0.innerProduct.inputChannels = 60
                $0.innerProduct.outputChannels = 7
                $0.innerProduct.weights = TestSpecs.weights(random.floats(420))
                $0.innerProduct.hasBias_p = true
                $0.innerProduct.bias = TestSpecs.weights(random.floats(7))
            },
        ]
        layers.append(Self.layer("add_broadcast", ["x", "constant", "global"]) { $0.add = .init() })
        layers.append(TestSpecs.layer("global_pool", ["x"], ["global"]) { $0.pooling.type = .average; $0.pooling.globalPooling = true })
        layers.append(Self.layer("multiply_broadcast", ["x", "global"]) { $0.multiply = .init() })
        let model = Self.network(input: [4, 3, 5], layers.filter { $0.name != "global_pool" } + layers.filter { $0.name == "global_pool" })
        try Self.expectSameOutputs(model, Self.input([4, 3, 5], seed: 6))
    }

    @Test func embeddingAndLSTMAgreeWithTheClassicEngine() throws {
        var random = TestRandom(seed: 7)
        let (inputSize, hidden) = (3, 4)
        var lstm = CoreML_Specification_UniDirectionalLSTMLayerParams()
        lstm.inputVectorSize = UInt64(inputSize)
        lstm.outputVectorSize = UInt64(hidden)
        lstm.params.sequenceOutput = true
        lstm.params.hasBiasVectors_p = true
        lstm.params.hasPeepholeVectors_p = true
        let w = { TestSpecs.weights(random.floats($0, -0.5, 0.5)) }
        lstm.weightParams = .with {
            $0.inputGateWeightMatrix = w(hidden * inputSize); $0.forgetGateWeightMatrix = w(hidden * inputSize)
            $0.blockInputWeightMatrix = w(hidden * inputSize); $0.outputGateWeightMatrix = w(hidden * inputSize)
            $0.inputGateRecursionMatrix = w(hidden * hidden); $0.forgetGateRecursionMatrix = w(hidden * hidden)
            $0.blockInputRecursionMatrix = w(hidden * hidden); $0.outputGateRecursionMatrix = w(hidden * hidden)
            $0.inputGateBiasVector = w(hidden); $0.forgetGateBiasVector = w(hidden); $0.blockInputBiasVector = w(hidden); $0.outputGateBiasVector = w(hidden)
            $0.inputGatePeepholeVector = w(hidden); $0.forgetGatePeepholeVector = w(hidden); $0.outputGatePeepholeVector = w(hidden)
        }
        // [Seq, 1, C, 1, 1] under the rank-5 mapping: 5 steps of 3 values.
        let model = Self.network(input: [5, 1, 3, 1, 1], [
            TestSpecs.layer("lstm", ["x"], ["lstm", "lstm_h", "lstm_c"]) { $0.uniDirectionalLstm = lstm },
        ])
        try Self.expectSameOutputs(model, Self.input([5, 1, 3, 1, 1], seed: 8))

        var embedding = Self.network(input: [1], [
            Self.layer("embedding") {
                $0.embedding.inputDim = 5
                $0.embedding.outputChannels = 3
                $0.embedding.weights = TestSpecs.weights(random.floats(15))
                $0.embedding.hasBias_p = true
                $0.embedding.bias = TestSpecs.weights(random.floats(3))
            },
        ])
        embedding.description_p.output[0].type.multiArrayType.shape = [3]
        let index = try MLMultiArray(shape: [1], dataType: .float32)
        index[0] = 3
        try Self.expectSameOutputs(embedding, MLDictionaryFeatureProvider(dictionary: ["x": MLFeatureValue(multiArray: index)]))
    }

    @Test func aClassifierFixtureAndLeNetPredictTheSameAsLowered() throws {
        for name in ["classifier_sgd.mlmodel", "lenet_updatable.mlmodel"] {
            let model = try Fixtures.model(name)
            let input = model.description_p.input[0]
            let shape = input.type.multiArrayType.shape.map(Int.init)
            var random = TestRandom(seed: 9)
            let array = try MLMultiArray(shape: shape.map { NSNumber(value: $0) }, dataType: .float32)
            for index in 0..<array.count { array[index] = NSNumber(value: random.float(0, 1)) }
            let features = try MLDictionaryFeatureProvider(dictionary: [input.name: MLFeatureValue(multiArray: array)])
            let classic = try MLModel(specification: model).prediction(from: features)
            let lowered = try MLModel(specification: ClassicLowering.program(for: model)).prediction(from: features)
            for output in model.description_p.output {
                let a = try #require(classic.featureValue(for: output.name)), b = try #require(lowered.featureValue(for: output.name))
                if let x = a.multiArrayValue?.floatValues(), let y = b.multiArrayValue?.floatValues() {
                    #expect(x.count == y.count)
                    #expect(zip(x, y).allSatisfy { abs($0 - $1) <= 1e-4 }, "\(name): output \(output.name)")
                } else if case .dictionary = a.type {
                    let (x, y) = (a.dictionaryValue, b.dictionaryValue)
                    #expect(Set(x.keys) == Set(y.keys))
                    for (key, value) in x { #expect(abs(value.doubleValue - (y[key]?.doubleValue ?? .nan)) <= 1e-4, "\(name): \(key)") }
                } else {
                    #expect(a.stringValue == b.stringValue && a.int64Value == b.int64Value, "\(name): output \(output.name)")
                }
            }
        }
    }

    /// A 1×1 deconvolution with stride 1 is a 1×1 convolution by the transposed weights, which the
    /// classic engine runs.
    @Test func deconvolutionRunsAsAnMLProgram() throws {
        var random = TestRandom(seed: 11)
        let weights = random.floats(4 * 6)  // [C_in = 4, C_out = 6, 1, 1]
        var transposed = [Float](repeating: 0, count: 24)
        for i in 0..<4 { for o in 0..<6 { transposed[o * 4 + i] = weights[i * 6 + o] } }
        func layer(deconvolution: Bool) -> Layer {
            Self.layer("y") {
                $0.convolution.outputChannels = 6
                $0.convolution.kernelChannels = 4
                $0.convolution.kernelSize = [1, 1]
                $0.convolution.isDeconvolution = deconvolution
                $0.convolution.valid = .init()
                $0.convolution.weights = TestSpecs.weights(deconvolution ? weights : transposed)
            }
        }
        let deconvolution = Self.network(input: [4, 3, 5], [layer(deconvolution: true)])
        let classicRunsIt = Network.hasNodes(forEveryLayerOf: deconvolution)
        #expect(!classicRunsIt)
        let input = try Self.input([4, 3, 5], seed: 12)
        let expected = try MLModel(specification: Self.network(input: [4, 3, 5], [layer(deconvolution: false)])).prediction(from: input)
        let actual = try MLModel(specification: deconvolution).prediction(from: input)
        let (x, y) = (try #require(expected.featureValue(for: "y")?.multiArrayValue), try #require(actual.featureValue(for: "y")?.multiArrayValue))
        #expect(x.shape == y.shape)
        #expect(zip(x.floatValues(), y.floatValues()).allSatisfy { abs($0 - $1) <= 1e-5 })
    }
}
