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
            Self.layer("inner_product") {
                $0.innerProduct.inputChannels = 288
                $0.innerProduct.outputChannels = 7
                $0.innerProduct.weights = TestSpecs.weights(random.floats(288 * 7))
                $0.innerProduct.hasBias_p = true
                $0.innerProduct.bias = TestSpecs.weights(random.floats(7))
            },
            Self.layer("pad_replicate") {
                $0.padding.replication = .init()
                $0.padding.paddingAmounts.borderAmounts = [.with { $0.startEdgeSize = 0; $0.endEdgeSize = 2 }, .with { $0.startEdgeSize = 3; $0.endEdgeSize = 0 }]
            },
        ])
        try Self.expectSameOutputs(model, Self.input([4, 9, 8], seed: 2))
    }

    /// The classic thresholded ReLU keeps x > alpha; MIL's keeps x ≥ alpha: the lowered layer gives
    /// 0 at x = alpha, as the classic engine does.
    @Test func aThresholdedReLUDropsTheThresholdItself() throws {
        let model = Self.network(input: [4], [Self.layer("thresholded") { $0.activation.thresholdedReLu.alpha = 0.25 }])
        let array = try MLMultiArray(shape: [4], dataType: .float32)
        let values: [Float] = [0.25, Float(0.25).nextUp, Float(0.25).nextDown, -1]
        for (index, value) in values.enumerated() { array[index] = NSNumber(value: value) }
        let input = try MLDictionaryFeatureProvider(dictionary: ["x": MLFeatureValue(multiArray: array)])
        let lowered = try MLModel(specification: ClassicLowering.program(for: model)).prediction(from: input)
        let y = try #require(lowered.featureValue(for: "thresholded")?.multiArrayValue)
        #expect((0..<4).map { y[$0].floatValue } == [0, Float(0.25).nextUp, 0, 0])
        try Self.expectSameOutputs(model, input, tolerance: 0)
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
        // clip is an iOS 13 layer: Core ML takes it under the exact mapping only.
        let model = Self.network(input: [4, 3, 5], exact: true, layers)
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
        ]
        layers.append(Self.layer("add_broadcast", ["x", "constant", "global"]) { $0.add = .init() })
        layers.append(TestSpecs.layer("global_pool", ["x"], ["global"]) { $0.pooling.type = .average; $0.pooling.globalPooling = true })
        layers.append(Self.layer("multiply_broadcast", ["x", "global"]) { $0.multiply = .init() })
        // Bilinear upsampling with corner modes or fractional factors is iOS 13's: exact mapping.
        let model = Self.network(input: [4, 3, 5], exact: true, layers.filter { $0.name != "global_pool" } + layers.filter { $0.name == "global_pool" })
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
        // Under the exact mapping the input stays [Seq, Batch, C, 1, 1] and so do the outputs.
        var exact = model
        exact.neuralNetwork.arrayInputShapeMapping = .exactArrayMapping
        try Self.expectSameOutputs(exact, Self.input([5, 1, 3, 1, 1], seed: 9))

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
    /// A 1×1 deconvolution is a 1×1 convolution with the weights transposed: the classic engine's
    /// deconvolution against its convolution.
    @Test func aPointwiseDeconvolutionIsTheTransposedConvolution() throws {
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
        #expect(Network.hasNodes(forEveryLayerOf: deconvolution))
        let input = try Self.input([4, 3, 5], seed: 12)
        let expected = try MLModel(specification: Self.network(input: [4, 3, 5], [layer(deconvolution: false)])).prediction(from: input)
        let actual = try MLModel(specification: deconvolution).prediction(from: input)
        let (x, y) = (try #require(expected.featureValue(for: "y")?.multiArrayValue), try #require(actual.featureValue(for: "y")?.multiArrayValue))
        #expect(x.shape == y.shape)
        #expect(zip(x.floatValues(), y.floatValues()).allSatisfy { abs($0 - $1) <= 1e-5 })
    }

    /// A classic network whose input takes a range of sizes predicts at sizes other than the declared
    /// one (through the program), as the same network declared at that size does (classic engine).
    @Test func flexibleInputsPredictAtEverySize() throws {
        var random = TestRandom(seed: 19)
        let weights = random.floats(3 * 4 * 3 * 3)
        let conv = Self.layer("y") {
            $0.convolution.outputChannels = 3
            $0.convolution.kernelChannels = 4
            $0.convolution.kernelSize = [3, 3]
            $0.convolution.valid = .init()
            $0.convolution.weights = TestSpecs.weights(weights)
        }
        var flexible = Self.network(input: [4, 5, 6], [conv])
        for (lower, upper) in [(4, 4), (3, 12), (3, 12)] as [(Int64, Int64)] {
            var range = CoreML_Specification_SizeRange()
            (range.lowerBound, range.upperBound) = (UInt64(lower), upper)
            flexible.description_p.input[0].type.multiArrayType.shapeRange.sizeRanges.append(range)
        }
        let model = try MLModel(specification: flexible)
        for size in [[4, 5, 6], [4, 9, 7]] {
            let input = try Self.input(size, seed: 20)
            let expected = try #require(try MLModel(specification: Self.network(input: size.map(Int64.init), [conv])).prediction(from: input)
                .featureValue(for: "y")?.multiArrayValue)
            let actual = try #require(try model.prediction(from: input).featureValue(for: "y")?.multiArrayValue)
            #expect(actual.shape == expected.shape, "\(size)")
            #expect(zip(expected.floatValues(), actual.floatValues()).allSatisfy { abs($0 - $1) <= 1e-4 }, "\(size)")
        }
    }

    /// A convolution whose weights are its second input (iOS 13) against the same convolution with
    /// the weights stored (the classic engine's).
    @Test func aConvolutionTakesItsWeightsFromASecondInput() throws {
        var random = TestRandom(seed: 17)
        let weights = random.floats(6 * 4 * 3 * 3)
        func layer(stored: Bool) -> Layer {
            Self.layer("y", stored ? ["x"] : ["x", "w"]) {
                $0.convolution.outputChannels = 6
                $0.convolution.kernelChannels = 4
                $0.convolution.kernelSize = [3, 3]
                $0.convolution.same = .init()
                if stored { $0.convolution.weights = TestSpecs.weights(weights) }
            }
        }
        let stored = Self.network(input: [1, 4, 5, 6], exact: true, [layer(stored: true)])
        var dynamic = Self.network(input: [1, 4, 5, 6], exact: true, [layer(stored: false)])
        dynamic.description_p.input.append(TestSpecs.array("w", [6, 4, 3, 3]))
        let input = try Self.input([1, 4, 5, 6], seed: 18)
        let w = try MLMultiArray(shape: [6, 4, 3, 3], dataType: .float32)
        for (index, value) in weights.enumerated() { w[index] = NSNumber(value: value) }
        let expected = try #require(try MLModel(specification: stored).prediction(from: input).featureValue(for: "y")?.multiArrayValue)
        let both = try MLDictionaryFeatureProvider(dictionary: ["x": input.featureValue(for: "x")!, "w": MLFeatureValue(multiArray: w)])
        let actual = try #require(try MLModel(specification: dynamic).prediction(from: both).featureValue(for: "y")?.multiArrayValue)
        #expect(expected.shape == actual.shape)
        #expect(zip(expected.floatValues(), actual.floatValues()).allSatisfy { abs($0 - $1) <= 1e-4 })
    }

    /// The classic engine's deconvolution against the program's `conv_transpose`: groups, strides,
    /// dilation, valid amounts, same padding both ways, an output shape.
    @Test func deconvolutionsAgreeWithTheProgramsTransposedConvolution() throws {
        var random = TestRandom(seed: 13)
        func deconvolution(_ name: String, groups: Int = 1, kernel: [UInt64], stride: [UInt64] = [1, 1], dilation: [UInt64] = [1, 1],
                           same: CoreML_Specification_SamePadding.SamePaddingMode? = nil, pad: [UInt64] = [], outputShape: [UInt64] = []) -> Layer {
            Self.layer(name) {
                $0.convolution.isDeconvolution = true
                $0.convolution.outputChannels = 6
                $0.convolution.kernelChannels = 4
                $0.convolution.nGroups = UInt64(groups)
                $0.convolution.kernelSize = kernel
                $0.convolution.stride = stride
                $0.convolution.dilationFactor = dilation
                $0.convolution.outputShape = outputShape
                if let same {
                    $0.convolution.same.asymmetryMode = same
                } else {
                    $0.convolution.valid = .init()
                    if pad.count == 4 {
                        var top = CoreML_Specification_BorderAmounts.EdgeSizes(), left = CoreML_Specification_BorderAmounts.EdgeSizes()
                        (top.startEdgeSize, top.endEdgeSize, left.startEdgeSize, left.endEdgeSize) = (pad[0], pad[1], pad[2], pad[3])
                        $0.convolution.valid.paddingAmounts.borderAmounts = [top, left]
                    }
                }
                $0.convolution.weights = TestSpecs.weights(random.floats(4 * 6 / groups * Int(kernel[0] * kernel[1])))
                $0.convolution.hasBias_p = true
                $0.convolution.bias = TestSpecs.weights(random.floats(6))
            }
        }
        let layers = [
            deconvolution("plain", kernel: [3, 3]),
            deconvolution("strided", kernel: [2, 3], stride: [2, 1], pad: [1, 0, 0, 2]),
            deconvolution("grouped", groups: 2, kernel: [3, 3], stride: [2, 2], same: .bottomRightHeavy),
            deconvolution("topLeft", kernel: [3, 2], stride: [2, 3], same: .topLeftHeavy),
            deconvolution("dilated", kernel: [2, 2], dilation: [2, 2]),
            deconvolution("shaped", kernel: [3, 3], stride: [2, 2], outputShape: [12, 14]),
        ]
        for layer in layers {
            try Self.expectSameOutputs(Self.network(input: [4, 5, 6], [layer]), Self.input([4, 5, 6], seed: 14), tolerance: 1e-5)
        }
    }

    /// Image inputs with scaler preprocessing, in every colour layout, through the program.
    @Test(arguments: [CoreML_Specification_ImageFeatureType.ColorSpace.rgb, .bgr, .grayscale])
    func imageInputsAndPreprocessingAgreeWithTheClassicEngine(colorSpace: CoreML_Specification_ImageFeatureType.ColorSpace) throws {
        var model = ImageInputTests.model(colorSpace: colorSpace, channels: colorSpace == .grayscale ? 1 : 3)
        model.isUpdatable = false
        model.description_p.trainingInput = []
        model.neuralNetwork.clearUpdateParams()
        let constraint = try #require(try MLModel(specification: model).modelDescription.inputDescriptionsByName["image"]?.imageConstraint)
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/images/rgb.png")
        let input = try MLDictionaryFeatureProvider(dictionary: ["image": MLFeatureValue(imageAt: url, constraint: constraint)])
        try Self.expectSameOutputs(model, input, tolerance: 1e-5)
    }

    /// One ND layer on `x` (exact mapping) through the program; its output's values and shape.
    static func lowered(_ shape: [Int], _ layers: [Layer], output: String? = nil, seed: UInt64 = 21,
                        extraInputs: [(String, [Int], [Float])] = []) throws -> (values: [Float], shape: [Int], input: [Float]) {
        var model = network(input: shape.map(Int64.init), exact: true, layers)
        for (name, extraShape, _) in extraInputs { model.description_p.input.append(TestSpecs.array(name, extraShape.map(Int64.init))) }
        var random = TestRandom(seed: seed)
        let values = random.floats(shape.reduce(1, *))
        var features: [String: MLFeatureValue] = [:]
        for (name, extraShape, extraValues) in [("x", shape, values)] + extraInputs {
            let array = try MLMultiArray(shape: extraShape.map { NSNumber(value: $0) }, dataType: .float32)
            for (index, value) in extraValues.enumerated() { array[index] = NSNumber(value: value) }
            features[name] = MLFeatureValue(multiArray: array)
        }
        let prediction = try MLModel(specification: model).prediction(from: MLDictionaryFeatureProvider(dictionary: features))
        let array = try #require(prediction.featureValue(for: output ?? layers.last!.output[0])?.multiArrayValue)
        return (array.floatValues(), array.shape.map(\.intValue), values)
    }

    /// The values of a row-major tensor of `shape` at the positions `index` maps out.
    static func gather(_ values: [Float], _ shape: [Int], _ outputShape: [Int], _ index: ([Int]) -> [Int]) -> [Float] {
        var result: [Float] = []
        var position = [Int](repeating: 0, count: outputShape.count)
        for _ in 0..<outputShape.reduce(1, *) {
            let source = index(position)
            var offset = 0
            for (d, i) in source.enumerated() { offset = offset * shape[d] + i }
            result.append(values[offset])
            var d = outputShape.count - 1
            while d >= 0 {
                position[d] += 1
                if position[d] < outputShape[d] { break }
                position[d] = 0
                d -= 1
            }
        }
        return result
    }

    @Test func slicesCropsAndTransposesSelectTheRightValues() throws {
        // Classic slice of C from 1 to the end's −1 (exclusive), and of W by stride 2.
        let channels = try Self.lowered([4, 3, 5], [Self.layer("y") { $0.slice.axis = .channelAxis; $0.slice.startIndex = 1; $0.slice.endIndex = -1; $0.slice.stride = 1 }])
        #expect(channels.shape == [2, 3, 5])
        #expect(channels.values == Self.gather(channels.input, [4, 3, 5], [2, 3, 5]) { [$0[0] + 1, $0[1], $0[2]] })
        let width = try Self.lowered([4, 3, 5], [Self.layer("y") { $0.slice.axis = .widthAxis; $0.slice.startIndex = 0; $0.slice.endIndex = 5; $0.slice.stride = 2 }])
        #expect(width.shape == [4, 3, 3])
        #expect(width.values == Self.gather(width.input, [4, 3, 5], [4, 3, 3]) { [$0[0], $0[1], $0[2] * 2] })
        // Crop by border amounts: 1 row from the top, 2 columns from the left and 1 from the right.
        let cropped = try Self.lowered([2, 4, 6], [Self.layer("y") {
            $0.crop.cropAmounts.borderAmounts = [.with { $0.startEdgeSize = 1; $0.endEdgeSize = 0 }, .with { $0.startEdgeSize = 2; $0.endEdgeSize = 1 }]
        }])
        #expect(cropped.shape == [2, 3, 3])
        #expect(cropped.values == Self.gather(cropped.input, [2, 4, 6], [2, 3, 3]) { [$0[0], $0[1] + 1, $0[2] + 2] })
        // Crop to a second input's H × W from an offset.
        let windowed = try Self.lowered([2, 4, 6], [Self.layer("y", ["x", "reference"]) { $0.crop.offset = [1, 3] }],
                                        extraInputs: [("reference", [1, 2, 2], [0, 0, 0, 0])])
        #expect(windowed.shape == [2, 2, 2])
        #expect(windowed.values == Self.gather(windowed.input, [2, 4, 6], [2, 2, 2]) { [$0[0], $0[1] + 1, $0[2] + 3] })
        // transpose and sliceStatic (negative end, stride and squeeze).
        let transposed = try Self.lowered([2, 3, 4], [Self.layer("y") { $0.transpose.axes = [2, 0, 1] }])
        #expect(transposed.shape == [4, 2, 3])
        #expect(transposed.values == Self.gather(transposed.input, [2, 3, 4], [4, 2, 3]) { [$0[1], $0[2], $0[0]] })
        let sliced = try Self.lowered([2, 3, 4], [Self.layer("y") {
            $0.sliceStatic.beginIds = [1, 0, 3]; $0.sliceStatic.endIds = [2, -1, 0]; $0.sliceStatic.strides = [1, 1, -2]
            $0.sliceStatic.beginMasks = [false, false, false]; $0.sliceStatic.endMasks = [false, false, true]; $0.sliceStatic.squeezeMasks = [true, false, false]
        }])
        #expect(sliced.shape == [2, 2])
        #expect(sliced.values == Self.gather(sliced.input, [2, 3, 4], [2, 2]) { [1, $0[0], 3 - 2 * $0[1]] })
    }

    @Test func reductionsAndArgumentsComputeTheirDefinitions() throws {
        let x = try Self.lowered([2, 3, 4], [Self.layer("y") { $0.reduceMean.axes = [1]; $0.reduceMean.keepDims = false }])
        #expect(x.shape == [2, 4])
        var expected: [Float] = []
        for a in 0..<2 { for c in 0..<4 { expected.append((0..<3).map { x.input[a * 12 + $0 * 4 + c] }.reduce(0, +) / 3) } }
        #expect(zip(x.values, expected).allSatisfy { abs($0 - $1) < 1e-6 })
        // Classic reduce (sum over H and W) keeps the rank with H = W = 1.
        let classic = try Self.lowered([2, 3, 4], [Self.layer("y") { $0.reduce.mode = .sum; $0.reduce.axis = .hw }])
        #expect(classic.shape == [2, 1, 1])
        #expect(zip(classic.values, [0, 1].map { c in classic.input[(c * 12)..<(c * 12 + 12)].reduce(0, +) }).allSatisfy { abs($0 - $1) < 1e-5 })
        // argMax along the last axis, the dimension removed.
        let arg = try Self.lowered([2, 3, 4], [Self.layer("y") { $0.argMax.axis = -1; $0.argMax.removeDim = true }])
        #expect(arg.shape == [2, 3])
        #expect(arg.values == stride(from: 0, to: 24, by: 4).map { row in Float((0..<4).max { arg.input[row + $0] < arg.input[row + $1] }!) })
        // topK with K from a second input: the 2 largest of each row, largest first.
        let top = try Self.lowered([2, 5], [TestSpecs.layer("top", ["x", "k"], ["values", "indices"]) { $0.topK.axis = -1 }],
                                   extraInputs: [("k", [1], [2])])
        #expect(top.shape == [2, 2])
        var largest: [Float] = []
        for row in 0..<2 { largest += Array(top.input[(row * 5)..<(row * 5 + 5)].sorted(by: >).prefix(2)) }
        #expect(top.values == largest)
        // reduceSum of everything without keeping dimensions is a one-value vector (no rank 0 in a network).
        let all = try Self.lowered([2, 3, 4], [Self.layer("y") { $0.reduceSum.reduceAll = true }])
        #expect(all.shape == [1])
        #expect(abs(all.values[0] - all.input.reduce(0, +)) < 1e-4)
    }

    /// The defect of the issue, through the program: innerProduct on an exact-mapped `[1, 10]` keeps
    /// rank 2, so softmaxND over the last axis normalizes the 3 classes (not a size-1 axis).
    @Test func innerProductKeepsTheRankForSoftmaxND() throws {
        var random = TestRandom(seed: 31)
        let weights = random.floats(30), bias = random.floats(3)
        let model = Self.network(input: [1, 10], exact: true, [
            Self.layer("dense") {
                $0.innerProduct.inputChannels = 10
                $0.innerProduct.outputChannels = 3
                $0.innerProduct.weights = TestSpecs.weights(weights)
                $0.innerProduct.hasBias_p = true
                $0.innerProduct.bias = TestSpecs.weights(bias)
            },
            Self.layer("probabilities", ["dense"]) { $0.softmaxNd.axis = -1 },
        ])
        let input = try Self.input([1, 10], seed: 32)
        let x = try #require(input.featureValue(for: "x")?.multiArrayValue).floatValues()
        let logits = (0..<3).map { o in (0..<10).reduce(bias[o]) { $0 + weights[o * 10 + $1] * x[$1] } }
        let largest = logits.max()!
        let expected = logits.map { exp($0 - largest) / logits.map { exp($0 - largest) }.reduce(0, +) }
        let lowered = try MLModel(specification: ClassicLowering.program(for: model)).prediction(from: input)
        let output = try #require(lowered.featureValue(for: "probabilities")?.multiArrayValue)
        #expect(output.shape == [1, 3])
        #expect(zip(output.floatValues(), expected).allSatisfy { abs($0 - $1) < 1e-5 })
    }

    @Test func unsupportedAndCustomLayersNameTheLayer() throws {
        let custom = Self.network(input: [3], [Self.layer("mystery") { $0.custom.className = "MyLayer" }])
        #expect {
            _ = try MLModel(specification: custom).prediction(from: Self.input([3], seed: 1))
        } throws: { error in
            let text = "\(error)"
            return text.contains("mystery") && text.contains("MyLayer")
        }
        // A gather index past the end fails at prediction, naming the layer.
        let gather = Self.network(input: [4], exact: true, [Self.layer("pick", ["x", "indices"]) { $0.gather.axis = 0 }])
        var withIndices = gather
        withIndices.description_p.input.append(TestSpecs.array("indices", [1]))
        let model = try MLModel(specification: withIndices)
        let values = try MLMultiArray(shape: [4], dataType: .float32), indices = try MLMultiArray(shape: [1], dataType: .float32)
        indices[0] = 9
        #expect {
            _ = try model.prediction(from: MLDictionaryFeatureProvider(dictionary: ["x": MLFeatureValue(multiArray: values), "indices": MLFeatureValue(multiArray: indices)]))
        } throws: { error in "\(error)".contains("pick") }
    }

    /// Weights with another number of values than the layer's sizes give them are an error naming the
    /// field, never a trap (FuzzModel found an embeddingND whose table was too short).
    @Test func weightsOfTheWrongSizeNameTheField() throws {
        let short = Self.layer("embed") {
            $0.embeddingNd.vocabSize = 4
            $0.embeddingNd.embeddingSize = 3
            $0.embeddingNd.weights = TestSpecs.weights([1, 2, 3, 4, 5])
        }
        #expect {
            _ = try ClassicLowering.program(for: Self.network(input: [2, 1], exact: true, [short]))
        } throws: { error in "\(error)".contains("embed") && "\(error)".contains("weights holds 5 values") }
    }

    /// `isSupportedLayerType` (what `inspect` marks "not supported") says what the lowering refuses.
    @Test func theSupportedLayerListMatchesTheLowering() throws {
        // 3-D layers lower, and refuse parameters they cannot run (here: zero kernel sizes) by name.
        let volume: [(String, (inout Layer) -> Void)] = [
            ("pooling3d", { $0.pooling3D = .init() }), ("convolution3d", { $0.convolution3D = .init() }),
        ]
        for (name, configure) in volume {
            let layer = Self.layer("l") { configure(&$0) }
            #expect(layer.isSupportedLayerType, "\(name)")
            #expect(throws: (any Error).self, "\(name)") { _ = try ClassicLowering.program(for: Self.network(input: [1, 2, 3, 4, 5], exact: true, [layer])) }
        }
        // A custom layer lowers to the operation the app's class computes; by itself it is not supported.
        let custom = Self.layer("l") { $0.custom.className = "C" }
        #expect(!custom.isSupportedLayerType)
        let program = try ClassicLowering.program(for: Self.network(input: [2, 3, 4], exact: true, [custom]))
        #expect(program.mlProgram.functions["main"]?.blockSpecializations["CoreML7"]?.operations.contains { $0.type == "custom_layer" } == true)
        let supported = Self.layer("l") { $0.reorganizeData.blockSize = 2 }
        #expect(supported.isSupportedLayerType)
    }

    /// Every layer type with default (zero) parameters, one to three inputs of ranks 1 to 5, exact
    /// and rank-5 mapped: loading and predicting may fail, with an error, but never trap.
    @Test func everyLayerTypeWithDefaultParametersFailsCleanlyOrPredicts() throws {
        var predicted = 0, refused = 0
        for number in Layer.appleLayerTypeNames.keys.sorted() {
            var tag = UInt64(number) << 3 | 2, bytes: [UInt8] = []
            while tag >= 0x80 { bytes.append(UInt8(tag & 0x7F) | 0x80); tag >>= 7 }
            var layer = try Layer(serializedBytes: bytes + [UInt8(tag), 0])
            layer.name = "l"
            layer.output = ["y", "y2", "y3"]
            for (inputs, rank, exact) in [(1, 4, true), (2, 3, true), (3, 2, true), (1, 3, false), (1, 5, true), (1, 1, true)] {
                let shape = [Int](repeating: 2, count: rank)
                var model = Self.network(input: shape.map(Int64.init), exact: exact, [])
                layer.input = ["x", "x2", "x3"].prefix(inputs).map { $0 }
                model.neuralNetwork.layers = [layer]
                for name in layer.input.dropFirst() { model.description_p.input.append(TestSpecs.array(name, shape.map(Int64.init))) }
                model.description_p.output = [TestSpecs.array("y", [])]
                var features: [String: MLFeatureValue] = [:]
                for name in layer.input {
                    let array = try MLMultiArray(shape: shape.map { NSNumber(value: $0) }, dataType: .float32)
                    for index in 0..<array.count { array[index] = NSNumber(value: Float(index % 3)) }
                    features[name] = MLFeatureValue(multiArray: array)
                }
                do {
                    _ = try MLModel(specification: model).prediction(from: MLDictionaryFeatureProvider(dictionary: features))
                    predicted += 1
                } catch {
                    refused += 1
                    #expect(!"\(error)".isEmpty)
                }
            }
        }
        #expect(predicted + refused == 158 * 6)
        #expect(predicted > 0)
    }
}
