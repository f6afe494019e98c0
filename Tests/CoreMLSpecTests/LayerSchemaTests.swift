import CoreMLSpec
import Foundation
import Testing
import _OpenCoreMLTestSupport

/// The schema models every layer type of Apple's `NeuralNetworkLayer.layer` oneof, with its parameters.
struct LayerSchemaTests {
    typealias Layer = CoreML_Specification_NeuralNetworkLayer

    /// A length-delimited field `number` holding an empty message: a layer of that type with default parameters.
    private static func emptyMessageField(_ number: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var tag = UInt64(number) << 3 | 2
        while tag >= 0x80 {
            bytes.append(UInt8(tag & 0x7F) | 0x80)
            tag >>= 7
        }
        bytes.append(UInt8(tag))
        return bytes + [0]
    }

    @Test func everyAppleLayerTypeDecodesToAModeledCase() throws {
        #expect(Layer.appleLayerTypeNames.count == 158)
        for (number, name) in Layer.appleLayerTypeNames.sorted(by: { $0.key < $1.key }) {
            let layer = try Layer(serializedBytes: Self.emptyMessageField(number))
            #expect(layer.layer != nil, "field \(number) (\(name)) is not modeled")
            #expect(layer.unknownFields.data.isEmpty, "field \(number) (\(name)) stayed unknown")
            #expect(layer.layerTypeName == name)
            #expect(layer.isModeledLayerType)
            #expect(try layer.serializedBytes() == Self.emptyMessageField(number))
        }
    }

    /// Layers of many newly modeled types, every one with non-default parameters, and the names
    /// Apple's specification gives their types.
    private static func newLayers() -> [(Layer, String)] {
        var list: [(Layer, String)] = []
        func add(_ type: String, _ configure: (inout Layer) -> Void) {
            list.append((TestSpecs.layer("l\(list.count)", ["x"], ["y\(list.count)"], configure), type))
        }
        add("lrn") { $0.lrn.alpha = 1e-4; $0.lrn.beta = 0.75; $0.lrn.localSize = 5; $0.lrn.k = 2 }
        add("mvn") { $0.mvn.acrossChannels = true; $0.mvn.normalizeVariance = true; $0.mvn.epsilon = 1e-5 }
        add("crop") {
            var edge = CoreML_Specification_BorderAmounts.EdgeSizes()
            edge.startEdgeSize = 1
            edge.endEdgeSize = 2
            $0.crop.cropAmounts.borderAmounts = [edge, edge]
            $0.crop.offset = [3, 4]
        }
        add("resizeBilinear") { $0.resizeBilinear.targetSize = [8, 9]; $0.resizeBilinear.mode.samplingMethod = .alignEndpointsMode }
        add("cropResize") {
            $0.cropResize.targetSize = [2, 3]
            $0.cropResize.normalizedCoordinates = true
            $0.cropResize.mode.samplingMethod = .roiAlignMode
            $0.cropResize.boxIndicesMode.boxMode = .centerSizeWidthFirst
            $0.cropResize.spatialScale = 0.5
        }
        add("reduce") { $0.reduce.mode = .argmax; $0.reduce.epsilon = 1e-6; $0.reduce.axis = .hw }
        add("split") { $0.split.nOutputs = 3 }
        add("reorganizeData") { $0.reorganizeData.mode = .pixelShuffle; $0.reorganizeData.blockSize = 2 }
        add("slice") { $0.slice.startIndex = -3; $0.slice.endIndex = -1; $0.slice.stride = 2; $0.slice.axis = .widthAxis }
        add("simpleRecurrent") {
            $0.simpleRecurrent.inputVectorSize = 2
            $0.simpleRecurrent.outputVectorSize = 1
            $0.simpleRecurrent.activation.sigmoid = .init()
            $0.simpleRecurrent.hasBiasVector_p = true
            $0.simpleRecurrent.weightMatrix = TestSpecs.weights([1, 2])
            $0.simpleRecurrent.recursionMatrix = TestSpecs.weights([3])
            $0.simpleRecurrent.biasVector = TestSpecs.weights([4])
            $0.simpleRecurrent.reverseInput = true
        }
        add("gru") {
            var sigmoid = CoreML_Specification_ActivationParams()
            sigmoid.sigmoid = .init()
            var tanh = CoreML_Specification_ActivationParams()
            tanh.tanh = .init()
            $0.gru.activations = [sigmoid, tanh]
            $0.gru.inputVectorSize = 1
            $0.gru.outputVectorSize = 1
            $0.gru.sequenceOutput = true
            $0.gru.updateGateWeightMatrix = TestSpecs.weights([0.5])
            $0.gru.outputGateBiasVector = TestSpecs.weights([-0.5])
        }
        add("biDirectionalLSTM") {
            var forward = CoreML_Specification_LSTMWeightParams()
            forward.inputGateWeightMatrix = TestSpecs.weights([1])
            var backward = CoreML_Specification_LSTMWeightParams()
            backward.outputGatePeepholeVector = TestSpecs.weights([2])
            $0.biDirectionalLstm.weightParams = [forward, backward]
            $0.biDirectionalLstm.params.hasPeepholeVectors_p = true
            $0.biDirectionalLstm.activationsBackwardLstm = [CoreML_Specification_ActivationParams()]
        }
        add("custom") {
            var value = CoreML_Specification_CustomLayerParams.CustomLayerParamValue()
            value.longValue = -7
            $0.custom.className = "MyLayer"
            $0.custom.parameters = ["count": value]
            $0.custom.weights = [TestSpecs.weights([1, 2, 3])]
            $0.custom.description_p = "a layer the app runs"
        }
        add("branch") {
            $0.branch.ifBranch.layers = [TestSpecs.layer("inner", ["a"], ["b"]) { $0.copy = .init() }]
            $0.branch.elseBranch.arrayInputShapeMapping = .exactArrayMapping
        }
        add("loop") { $0.loop.maxLoopIterations = 4; $0.loop.conditionVar = "c"; $0.loop.bodyNetwork.layers = [TestSpecs.layer("brk", [], []) { $0.loopBreak = .init() }] }
        add("rangeDynamic") { $0.rangeDynamic.startValue = 1; $0.rangeDynamic.stepSizeValue = 0.5 }
        add("greaterThan") { $0.greaterThan.alpha = 0.25 }
        add("notEqual") { $0.notEqual.alpha = 3 }
        add("gelu") { $0.gelu.mode = .tanhApproximation }
        add("scatter") { $0.scatter.axis = -1; $0.scatter.mode = .scatterMax }
        add("scatterND") { $0.scatterNd.mode = .scatterAdd }
        add("splitND") { $0.splitNd.axis = 1; $0.splitNd.splitSizes = [2, 3] }
        add("sliceStatic") {
            $0.sliceStatic.beginIds = [0, 1]
            $0.sliceStatic.beginMasks = [true, false]
            $0.sliceStatic.endIds = [-1, 5]
            $0.sliceStatic.strides = [1, 2]
            $0.sliceStatic.squeezeMasks = [false, true]
        }
        add("topK") { $0.topK.axis = -2; $0.topK.k = 4; $0.topK.useBottomK = true }
        add("embeddingND") { $0.embeddingNd.vocabSize = 3; $0.embeddingNd.embeddingSize = 2; $0.embeddingNd.weights = TestSpecs.weights(count: 6) }
        add("loadConstantND") { $0.loadConstantNd.shape = [2, 1]; $0.loadConstantNd.data = TestSpecs.weights([5, 6]) }
        add("constantPad") { $0.constantPad.value = -1; $0.constantPad.padAmounts = [0, 1, 2, 3]; $0.constantPad.padToGivenOutputSizeMode = true }
        add("randomNormalStatic") { $0.randomNormalStatic.seed = -42; $0.randomNormalStatic.stdDev = 2; $0.randomNormalStatic.outputShape = [3] }
        add("categoricalDistribution") { $0.categoricalDistribution.numSamples = 5; $0.categoricalDistribution.isLogits = true; $0.categoricalDistribution.temperature = 0.7 }
        add("reduceLogSumExp") { $0.reduceLogSumExp.axes = [-1, 0]; $0.reduceLogSumExp.keepDims = true }
        add("whereNonZero") { $0.whereNonZero = .init() }
        add("layerNormalization") {
            $0.layerNormalization.normalizedShape = [4]
            $0.layerNormalization.eps = 1e-5
            $0.layerNormalization.gamma = TestSpecs.weights(count: 4)
            $0.layerNormalization.beta = TestSpecs.weights(count: 4)
        }
        add("NonMaximumSuppression") { $0.nonMaximumSuppression.iouThreshold = 0.5; $0.nonMaximumSuppression.maxBoxes = 10; $0.nonMaximumSuppression.perClassSuppression = true }
        add("oneHot") { $0.oneHot.oneHotVectorSize = 10; $0.oneHot.axis = -1; $0.oneHot.onValue = 2 }
        add("cumSum") { $0.cumSum.axis = 1; $0.cumSum.excludeFinalSum = true; $0.cumSum.reverse = true }
        add("clampedReLU") { $0.clampedReLu.alpha = 0.1; $0.clampedReLu.beta = 6 }
        add("argSort") { $0.argSort.axis = 2; $0.argSort.descending = true }
        add("pooling3d") {
            $0.pooling3D.type = .average
            $0.pooling3D.kernelDepth = 2
            $0.pooling3D.paddingType = .same
            $0.pooling3D.customPaddingRight = 1
            $0.pooling3D.countExcludePadding = true
        }
        add("globalPooling3d") { $0.globalPooling3D.type = .average }
        add("sliceBySize") { $0.sliceBySize.size = 3; $0.sliceBySize.axis = -1 }
        add("convolution3d") {
            $0.convolution3D.outputChannels = 2
            $0.convolution3D.inputChannels = 1
            $0.convolution3D.kernelDepth = 1
            $0.convolution3D.kernelHeight = 1
            $0.convolution3D.kernelWidth = 1
            $0.convolution3D.paddingType = .valid
            $0.convolution3D.isDeconvolution = true
            $0.convolution3D.outputShape = [4, 4, 4]
            $0.convolution3D.weights = TestSpecs.weights([1, 2])
        }
        return list
    }

    @Test func newLayerTypesRoundTripByteIdentically() throws {
        let layers = Self.newLayers()
        var model = CoreML_Specification_Model()
        model.specificationVersion = 9
        model.description_p.input = [TestSpecs.array("x", [4])]
        model.neuralNetwork.layers = layers.map(\.0)
        let bytes = try model.serializedModel()
        let parsed = try CoreML_Specification_Model(serializedModel: bytes)
        #expect(parsed == model)
        #expect(try parsed.serializedModel() == bytes)
        #expect(parsed.neuralNetwork.layers.map(\.layerTypeName) == layers.map(\.1))
        for layer in parsed.neuralNetwork.layers {
            #expect(layer.layer != nil && layer.unknownFields.data.isEmpty, "\(layer.layerTypeName)")
        }
        // A few values, to see that they went through the wire rather than just equality of defaults.
        #expect(parsed.neuralNetwork.layers[0].lrn.localSize == 5)
        #expect(parsed.neuralNetwork.layers.first { $0.layerTypeName == "custom" }?.custom.parameters["count"]?.longValue == -7)
        #expect(parsed.neuralNetwork.layers.first { $0.layerTypeName == "branch" }?.branch.ifBranch.layers.first?.layerTypeName == "copy")
    }

    @Test func layerTypesWithoutAStaticShapeRuleAreNamedInShapeErrors() throws {
        for (layer, type) in Self.newLayers() {
            #expect(layer.connectionCounts == nil)
            #expect(throws: LayerSpecificationError.self) { try layer.outputShapes(for: [[4]]) }
            do {
                _ = try layer.outputShapes(for: [[4]])
            } catch {
                #expect("\(error)".contains("\(type) layers have no static shape rule"))
            }
        }
    }
}
