import CoreMLSpec
import Foundation

/// Small models with hostile sizes or inconsistent wiring, the kinds a fuzzer or an attacker
/// writes: each must be rejected with one error naming the part, never trap.
///
/// Sizes go to the edges: 2^62, 2^40 × 2^40, `UInt64.max`, negative `Int64` bit patterns in fields
/// that are unsigned in meaning, `Int32.max` cubed.
public enum HostileModels {
    public typealias Layer = CoreML_Specification_NeuralNetworkLayer

    /// One hostile model and what rejects it.
    public struct Case: Sendable, CustomStringConvertible {
        public let name: String
        public let model: CoreML_Specification_Model
        /// Text the error must contain (the part and what is wrong with it).
        public let message: String
        /// Whether the validator rejects the model; otherwise it is valid by Core ML's rules and
        /// compiling the network rejects it.
        public let failsValidation: Bool
        /// How many numbers input `x` takes, to run a prediction far enough to compile the network.
        public let inputCount: Int

        public var description: String { name }
    }

    // MARK: Builders

    /// A plain neural network from `inputs` to output `y` of shape `outputShape`.
    public static func network(_ inputs: [(String, [Int64])], _ layers: [Layer], outputShape: [Int64] = [2]) -> CoreML_Specification_Model {
        var model = CoreML_Specification_Model()
        model.specificationVersion = 4
        model.description_p.input = inputs.map { TestSpecs.array($0.0, $0.1) }
        model.description_p.output = [TestSpecs.array("y", outputShape)]
        model.neuralNetwork.layers = layers
        return model
    }

    /// `x` [2, 4, 4] (32 numbers) → one layer → `y`.
    static func onePlane(_ layer: Layer) -> CoreML_Specification_Model { network([("x", [2, 4, 4])], [layer]) }

    /// `x` [3] → innerProduct 'dense' (3 → 2) → `y`, with `configure` applied to the layer's parameters.
    public static func dense(_ configure: (inout CoreML_Specification_InnerProductLayerParams) -> Void = { _ in }) -> CoreML_Specification_Model {
        var params = CoreML_Specification_InnerProductLayerParams()
        params.inputChannels = 3
        params.outputChannels = 2
        params.weights = TestSpecs.weights(count: 6)
        configure(&params)
        return network([("x", [3])], [TestSpecs.layer("dense", ["x"], ["y"]) { $0.innerProduct = params }])
    }

    /// `x` [2, 4, 4] → 2×2 convolution 'conv' (2 → 2 channels, valid padding) → `y`.
    public static func convolution(_ configure: (inout CoreML_Specification_ConvolutionLayerParams) -> Void) -> CoreML_Specification_Model {
        var params = CoreML_Specification_ConvolutionLayerParams()
        params.outputChannels = 2
        params.kernelChannels = 2
        params.kernelSize = [2, 2]
        params.valid = .init()
        params.weights = TestSpecs.weights(count: 16)
        configure(&params)
        return onePlane(TestSpecs.layer("conv", ["x"], ["y"]) { $0.convolution = params })
    }

    /// An updatable network: `x` [3] → innerProduct 'dense' (3 → 2) → softmax 'sm' → `probs`,
    /// trained by cross-entropy against the training input `target` (an Int64 class index) with SGD.
    public static func updatable() -> CoreML_Specification_Model {
        var params = CoreML_Specification_InnerProductLayerParams()
        params.inputChannels = 3
        params.outputChannels = 2
        params.hasBias_p = true
        params.weights = TestSpecs.weights(count: 6, updatable: true)
        params.bias = TestSpecs.weights(count: 2, updatable: true)
        var model = network([("x", [3])], [
            TestSpecs.layer("dense", ["x"], ["logits"]) { $0.innerProduct = params; $0.isUpdatable = true },
            TestSpecs.layer("sm", ["logits"], ["probs"]) { $0.softmax = .init() },
        ])
        model.description_p.output = [TestSpecs.array("probs", [2])]
        var loss = CoreML_Specification_LossLayer()
        loss.name = "loss"
        loss.categoricalCrossEntropyLossLayer.input = "probs"
        loss.categoricalCrossEntropyLossLayer.target = "target"
        var update = CoreML_Specification_NetworkUpdateParameters()
        update.lossLayers = [loss]
        update.optimizer.sgdOptimizer.learningRate.defaultValue = 0.1
        update.optimizer.sgdOptimizer.miniBatchSize.defaultValue = 1
        update.epochs.defaultValue = 1
        model.neuralNetwork.updateParams = update
        model.description_p.trainingInput = [TestSpecs.array("x", [3]), TestSpecs.feature("target") { $0.int64Type = .init() }]
        model.isUpdatable = true
        return model
    }

    /// `updatable()` changed by `change`.
    public static func updatable(_ change: (inout CoreML_Specification_Model) -> Void) -> CoreML_Specification_Model {
        var model = updatable()
        change(&model)
        return model
    }

    /// A neural-network classifier with `labels`: `x` [3] → innerProduct (3 → 2) → softmax → `probs`.
    public static func classifier(labels: [String]) -> CoreML_Specification_Model {
        var params = CoreML_Specification_InnerProductLayerParams()
        params.inputChannels = 3
        params.outputChannels = 2
        params.weights = TestSpecs.weights(count: 6)
        var model = CoreML_Specification_Model()
        model.specificationVersion = 4
        model.description_p.input = [TestSpecs.array("x", [3])]
        model.description_p.output = [
            TestSpecs.feature("label") { $0.stringType = .init() },
            TestSpecs.feature("labelProbabilities") { $0.dictionaryType.stringKeyType = .init() },
        ]
        model.description_p.predictedFeatureName = "label"
        model.description_p.predictedProbabilitiesName = "labelProbabilities"
        model.neuralNetworkClassifier.layers = [
            TestSpecs.layer("dense", ["x"], ["logits"]) { $0.innerProduct = params },
            TestSpecs.layer("sm", ["logits"], ["probs"]) { $0.softmax = .init() },
        ]
        model.neuralNetworkClassifier.stringClassLabels.vector = labels
        return model
    }

    /// Pipeline: `x` [3] → (innerProduct 3 → 2 giving `h` [2]) → (softmax reading `h` as
    /// `stageTwoInput`) → `z`.
    public static func pipeline(stageTwoInput: [Int64]) -> CoreML_Specification_Model {
        var first = dense()
        first.neuralNetwork.layers[0].output = ["h"]
        first.description_p.output = [TestSpecs.array("h", [2])]
        var second = network([("h", stageTwoInput)], [TestSpecs.layer("sm", ["h"], ["z"]) { $0.softmax = .init() }], outputShape: stageTwoInput)
        second.description_p.output[0].name = "z"
        var model = CoreML_Specification_Model()
        model.specificationVersion = 4
        model.description_p.input = [TestSpecs.array("x", [3])]
        model.description_p.output = [TestSpecs.array("z", stageTwoInput)]
        model.pipeline.models = [first, second]
        return model
    }

    /// A k-NN classifier over input `x` of `shape`, with numberOfDimensions 4 and no samples.
    public static func nearestNeighbors(inputShape shape: [Int64]) -> CoreML_Specification_Model {
        var model = CoreML_Specification_Model()
        model.specificationVersion = 4
        model.description_p.input = [TestSpecs.array("x", shape)]
        model.description_p.output = [TestSpecs.feature("label") { $0.int64Type = .init() }]
        model.description_p.predictedFeatureName = "label"
        var knn = CoreML_Specification_KNearestNeighborsClassifier()
        knn.nearestNeighborsIndex.numberOfDimensions = 4
        knn.nearestNeighborsIndex.linearIndex = .init()
        knn.nearestNeighborsIndex.squaredEuclideanDistance = .init()
        knn.uniformWeighting = .init()
        knn.numberOfNeighbors.defaultValue = 1
        knn.int64ClassLabels.vector = []
        knn.defaultInt64Label = 0
        model.kNearestNeighborsClassifier = knn
        return model
    }

    static func edges(_ size: UInt64) -> CoreML_Specification_BorderAmounts {
        var edge = CoreML_Specification_BorderAmounts.EdgeSizes()
        edge.startEdgeSize = size
        edge.endEdgeSize = size
        var amounts = CoreML_Specification_BorderAmounts()
        amounts.borderAmounts = [edge, edge]
        return amounts
    }

    // MARK: The cases

    static let minus8 = UInt64(bitPattern: -8)
    static let int32Max = UInt64(Int32.max)

    /// Every hostile model, each with the error it must get.
    public static let cases: [Case] = validationCases + compileCases

    /// Models the validator rejects (so `inspect` and loading fail).
    public static let validationCases: [Case] = [
        Case(name: "quantizationBitsUInt64Max", model: dense {
            $0.weights = CoreML_Specification_WeightParams()
            $0.weights.rawValue = Data(repeating: 0x55, count: 6)
            $0.weights.quantization.numberOfBits = .max
            $0.weights.quantization.linearQuantization.scale = [1]
        }, message: "layer 'dense': weights is quantized with 18446744073709551615 bits; 1 to 8 are supported", failsValidation: true, inputCount: 3),
        Case(name: "quantizationBitsNegative", model: dense {
            $0.weights = CoreML_Specification_WeightParams()
            $0.weights.rawValue = Data(repeating: 0x55, count: 6)
            $0.weights.quantization.numberOfBits = minus8
            $0.weights.quantization.lookupTableQuantization.floatValue = [0, 1]
        }, message: "layer 'dense': weights is quantized with 18446744073709551608 bits", failsValidation: true, inputCount: 3),
        Case(name: "innerProduct2p40x2p40", model: dense { $0.inputChannels = 1 << 40; $0.outputChannels = 1 << 40 },
             message: "layer 'dense': weights would need 1099511627776 × 1099511627776 values, more than any file can hold", failsValidation: true, inputCount: 3),
        Case(name: "embeddingInputDimUInt64Max", model: network([("x", [1])], [TestSpecs.layer("embed", ["x"], ["y"]) {
            $0.embedding.inputDim = .max
            $0.embedding.outputChannels = 2
            $0.embedding.weights = TestSpecs.weights(count: 8)
        }]), message: "layer 'embed': weights would need 18446744073709551615 × 2 values", failsValidation: true, inputCount: 1),
        Case(name: "convolutionGroupsUInt64Max", model: convolution { $0.nGroups = .max },
             message: "layer 'conv': outputChannels 2 is not divisible by the 18446744073709551615 groups", failsValidation: true, inputCount: 32),
        Case(name: "convolutionKernelUInt64Max", model: convolution { $0.kernelSize = [.max, 2] },
             message: "layer 'conv': weights would need 2 × 2 × 18446744073709551615 × 2 values", failsValidation: true, inputCount: 32),
        Case(name: "convolutionOutputChannels2p62", model: convolution { $0.outputChannels = 1 << 62 },
             message: "layer 'conv': weights would need 4611686018427387904 × 2 × 2 × 2 values", failsValidation: true, inputCount: 32),
        Case(name: "batchedMatmul2p40x2p40", model: onePlane(TestSpecs.layer("mm", ["x"], ["y"]) {
            $0.batchedMatmul.weightMatrixFirstDimension = 1 << 40
            $0.batchedMatmul.weightMatrixSecondDimension = 1 << 40
            $0.batchedMatmul.weights = TestSpecs.weights(count: 4)
        }), message: "layer 'mm': weights would need 1099511627776 × 1099511627776 values", failsValidation: true, inputCount: 32),
        Case(name: "lstmInputSizeUInt64Max", model: onePlane(TestSpecs.layer("lstm", ["x"], ["y"]) {
            $0.uniDirectionalLstm.inputVectorSize = .max
            $0.uniDirectionalLstm.outputVectorSize = 2
        }), message: "layer 'lstm': inputGateWeightMatrix would need 2 × 18446744073709551615 values", failsValidation: true, inputCount: 32),
        Case(name: "scaleShapeInt32MaxCubed", model: onePlane(TestSpecs.layer("scale", ["x"], ["y"]) {
            $0.scale.shapeScale = [int32Max, int32Max, int32Max]
            $0.scale.scale = TestSpecs.weights(count: 2)
        }), message: "layer 'scale': scale would need 2147483647 × 2147483647 × 2147483647 values", failsValidation: true, inputCount: 32),
        Case(name: "loadConstantShape2p21Cubed", model: onePlane(TestSpecs.layer("const", [], ["y"]) {
            $0.loadConstant.shape = [1 << 21, 1 << 21, 1 << 21]
            $0.loadConstant.data = TestSpecs.weights(count: 8)
        }), message: "layer 'const': data would need 2097152 × 2097152 × 2097152 values", failsValidation: true, inputCount: 32),
        Case(name: "inputShape2p40x2p40", model: network([("x", [1 << 40, 1 << 40])], [TestSpecs.layer("sm", ["x"], ["y"]) { $0.softmax = .init() }]),
             message: "input 'x': the shape 1099511627776 × 1099511627776 holds more elements than a 64-bit count can hold", failsValidation: true, inputCount: 1),
        Case(name: "outputShapeInt64Max", model: network([("x", [3])], [TestSpecs.layer("sm", ["x"], ["y"]) { $0.softmax = .init() }], outputShape: [.max, .max]),
             message: "output 'y': the shape 9223372036854775807 × 9223372036854775807 holds more elements", failsValidation: true, inputCount: 3),
        Case(name: "inputShapeNegative", model: network([("x", [-5, 2])], [TestSpecs.layer("sm", ["x"], ["y"]) { $0.softmax = .init() }]),
             message: "input 'x': dimension 0 of the shape [-5, 2] is not positive", failsValidation: true, inputCount: 1),
        Case(name: "imageInt64Max", model: {
            var model = network([("x", [3])], [TestSpecs.layer("sm", ["x"], ["y"]) { $0.softmax = .init() }])
            model.description_p.input[0].type.imageType.width = .max
            model.description_p.input[0].type.imageType.height = .max
            model.description_p.input[0].type.imageType.colorSpace = .rgb
            return model
        }(), message: "input 'x': the image size 9223372036854775807 × 9223372036854775807 holds more elements", failsValidation: true, inputCount: 0),
        Case(name: "nearestNeighborsInput2p40x2p40", model: nearestNeighbors(inputShape: [1 << 40, 1 << 40]),
             message: "input 'x': the shape 1099511627776 × 1099511627776 holds more elements", failsValidation: true, inputCount: 1),
        Case(name: "layerWithoutInputs", model: onePlane(TestSpecs.layer("orphan", [], ["y"]) { $0.softmax = .init() }),
             message: "layer 'orphan': a softmax layer takes 1 input; this one names 0", failsValidation: true, inputCount: 32),
        Case(name: "flattenWithTwoInputs", model: network([("x", [2, 4, 4]), ("x2", [2, 4, 4])], [TestSpecs.layer("flat", ["x", "x2"], ["y"]) { $0.flatten = .init() }]),
             message: "layer 'flat': a flatten layer takes 1 input; this one names 2", failsValidation: true, inputCount: 32),
        Case(name: "poolingStrideZero", model: onePlane(TestSpecs.layer("pool", ["x"], ["y"]) {
            $0.pooling.kernelSize = [2, 2]
            $0.pooling.stride = [0, 0]
            $0.pooling.valid = .init()
        }), message: "layer 'pool': stride [0, 0] must be two positive sizes", failsValidation: true, inputCount: 32),
        Case(name: "weightsAsFloat32AndFloat16", model: dense { $0.weights.float16Value = Data(repeating: 0, count: 12) },
             message: "layer 'dense': weights stores values in more than one field", failsValidation: true, inputCount: 3),
        Case(name: "float16OddByteCount", model: dense {
            $0.weights = CoreML_Specification_WeightParams()
            $0.weights.float16Value = Data(repeating: 0, count: 13)
        }, message: "layer 'dense': weights has 13 bytes of float16 values, an odd number", failsValidation: true, inputCount: 3),
        Case(name: "classifierWithMoreLabelsThanProbabilities", model: classifier(labels: ["a", "b", "c"]),
             message: "there are 3 class labels, but the probabilities 'probs' hold 2 values", failsValidation: true, inputCount: 3),
        Case(name: "pipelineStageInputOfAnotherShape", model: pipeline(stageTwoInput: [3]),
             message: "pipeline model 2 (neuralNetwork): input 'h' expects multi-array float32 [3], but the output of pipeline model 1 gives multi-array float32 [2]",
             failsValidation: true, inputCount: 3),
        Case(name: "trainingInputOfAnotherShape", model: updatable { $0.description_p.trainingInput[0] = TestSpecs.array("x", [4]) }, message: "training input 'x': the model input of this name is multi-array float32 [3], but the training input is multi-array float32 [4]",
             failsValidation: true, inputCount: 3),
        Case(name: "crossEntropyTargetOfThreeValues", model: updatable { $0.description_p.trainingInput[1] = TestSpecs.array("target", [3]) }, message: "loss layer 'loss': the loss target 'target' (multi-array float32 [3]) holds 3 values; cross-entropy takes one class index per example",
             failsValidation: true, inputCount: 3),
        Case(name: "meanSquaredErrorTargetOfAnotherSize", model: updatable {
            $0.neuralNetwork.updateParams.lossLayers[0].meanSquaredErrorLossLayer.input = "probs"
            $0.neuralNetwork.updateParams.lossLayers[0].meanSquaredErrorLossLayer.target = "target"
            $0.description_p.trainingInput[1] = TestSpecs.array("target", [5])
        }, message: "loss layer 'loss': the loss target 'target' (multi-array float32 [5]) holds 5 values per example, but the loss input 'probs' holds 2",
             failsValidation: true, inputCount: 3),
    ]

    /// Models valid by Core ML's rules whose declared sizes the engine cannot use: compiling the
    /// network (the first prediction) fails.
    public static let compileCases: [Case] = [
        Case(name: "convolutionDilationUInt64Max", model: convolution { $0.dilationFactor = [.max, .max] },
             message: "layer 'conv' (convolution): dilationFactor 18446744073709551615 is too large (at most 2147483647)", failsValidation: false, inputCount: 32),
        Case(name: "convolutionPadding2p62", model: convolution { $0.valid.paddingAmounts = edges(1 << 62) },
             message: "layer 'conv' (convolution): padding 4611686018427387904 is too large", failsValidation: false, inputCount: 32),
        Case(name: "paddingAmountsNegative", model: onePlane(TestSpecs.layer("pad", ["x"], ["y"]) {
            $0.padding.constant = .init()
            $0.padding.paddingAmounts = edges(minus8)
        }), message: "layer 'pad' (padding): padding 18446744073709551608 is too large", failsValidation: false, inputCount: 32),
        Case(name: "permuteAxisNegative", model: onePlane(TestSpecs.layer("perm", ["x"], ["y"]) { $0.permute.axis = [0, 1, 2, UInt64(bitPattern: -1)] }),
             message: "layer 'perm' (permute): axis [0, 1, 2, 18446744073709551615] must be a permutation", failsValidation: false, inputCount: 32),
        Case(name: "reshapeTargetInt64Min", model: onePlane(TestSpecs.layer("reshape", ["x"], ["y"]) { $0.reshape.targetShape = [.min, 1, 1] }),
             message: "layer 'reshape' (reshape): targetShape -9223372036854775808 is negative", failsValidation: false, inputCount: 32),
        Case(name: "upsampleTwiceByInt32Max", model: network([("x", [2, 4, 4])], [
            TestSpecs.layer("up1", ["x"], ["a"]) { $0.upsample.scalingFactor = [int32Max, int32Max] },
            TestSpecs.layer("up2", ["a"], ["y"]) { $0.upsample.scalingFactor = [int32Max, int32Max] },
        ]), message: "layer 'up1' (upsample): an input plane of 8589934588×8589934588 is too large", failsValidation: false, inputCount: 32),
        // Found by fuzzing: a pooling type outside MAX/AVERAGE/L2 (protobuf keeps the unknown
        // number) ran as L2, slowly; like an unknown upsample mode or unary operation, it fails.
        Case(name: "poolingTypeUnknown", model: onePlane(TestSpecs.layer("pool", ["x"], ["y"]) {
            $0.pooling.type = .UNRECOGNIZED(45)
            $0.pooling.kernelSize = [2, 2]
            $0.pooling.stride = [2, 2]
            $0.pooling.valid = .init()
        }), message: "layer 'pool' (pooling): unknown pooling type 45", failsValidation: false, inputCount: 32),
    ]
}
