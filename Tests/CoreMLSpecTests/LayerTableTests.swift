import CoreMLSpec
import Foundation
import Testing
import _OpenCoreMLTestSupport

/// The layer table: which weight blobs a layer has (Core ML's flags decide), how many values each
/// needs, what the validator makes of them, and the shapes layers give their outputs.
struct LayerTableTests {
    /// `x` [3] → innerProduct 'dense' (3 → 2) → `y` [2].
    private static func denseModel(hasBias: Bool, bias: [Float]) -> CoreML_Specification_Model {
        var model = CoreML_Specification_Model()
        model.specificationVersion = 4
        model.description_p.input = [TestSpecs.array("x", [3])]
        model.description_p.output = [TestSpecs.array("y", [2])]
        var params = CoreML_Specification_InnerProductLayerParams()
        params.inputChannels = 3
        params.outputChannels = 2
        params.hasBias_p = hasBias
        params.weights = TestSpecs.weights([1, 2, 3, 4, 5, 6])
        params.bias = TestSpecs.weights(bias)
        model.neuralNetwork.layers = [TestSpecs.layer("dense", ["x"], ["y"]) { $0.innerProduct = params }]
        return model
    }

    private static func blobs(_ layer: CoreML_Specification_NeuralNetworkLayer) -> [String] { layer.weightBlobs.map(\.name) }

    private static func count(_ layer: CoreML_Specification_NeuralNetworkLayer, _ blob: String) -> LayerWeight.ExpectedCount? {
        layer.weightBlob(named: blob)?.expectedCount
    }

    // MARK: Validation by the table

    @Test func denseModelWithItsBiasIsValid() {
        #expect(Self.denseModel(hasBias: true, bias: [0.5, -0.5]).validationIssues().isEmpty)
    }

    @Test func hasBiasWithoutBiasValuesFailsNamingTheLayerAndTheBlob() {
        let issues = Self.denseModel(hasBias: true, bias: []).validationIssues()
        #expect(issues.map(\.description) == ["invalid model: layer 'dense': hasBias is set, but bias holds no values; the layer's sizes need 2"])
        #expect(issues.first?.location == "layer 'dense'")
    }

    @Test func hasBiasWithTheWrongBiasCountFails() {
        let issues = Self.denseModel(hasBias: true, bias: [1]).validationIssues()
        #expect(issues.map(\.description) == ["invalid model: layer 'dense': bias holds 1 values; the layer's sizes need 2"])
    }

    /// Core ML ignores bias values when the flag is off (its reverse check never fires): so do the
    /// validator, the table and the parameter count.
    @Test func biasValuesWithoutTheFlagAreIgnored() {
        let model = Self.denseModel(hasBias: false, bias: [1, 2])
        #expect(model.validationIssues().isEmpty)
        let layer = model.neuralNetwork.layers[0]
        #expect(Self.blobs(layer) == ["weights"])
        #expect(layer.parameterCount == 6)
        #expect(model.neuralNetwork.parameterCount == 6)
    }

    @Test func hugeDeclaredSizesAreAValidationErrorNotATrap() {
        var model = Self.denseModel(hasBias: true, bias: [0, 0])
        model.neuralNetwork.layers[0].innerProduct.inputChannels = 1 << 40
        model.neuralNetwork.layers[0].innerProduct.outputChannels = 1 << 40
        let layer = model.neuralNetwork.layers[0]
        #expect(Self.count(layer, "weights") == .overflow(sizes: [1 << 40, 1 << 40]))
        #expect(Self.count(layer, "bias") == .exactly(1 << 40))
        let issues = model.validationIssues().map(\.description)
        #expect(issues.contains("invalid model: layer 'dense': weights would need 1099511627776 × 1099511627776 values, more than any file can hold"))

        model.neuralNetwork.layers[0].innerProduct.inputChannels = .max
        #expect(Self.count(model.neuralNetwork.layers[0], "weights") == .overflow(sizes: [.max, 1 << 40]))
        #expect(!model.validationIssues().isEmpty)
    }

    @Test func lstmBiasFlagNamesTheMissingVector() {
        var lstm = CoreML_Specification_UniDirectionalLSTMLayerParams()
        lstm.inputVectorSize = 3
        lstm.outputVectorSize = 2
        lstm.params.hasBiasVectors_p = true
        var w = CoreML_Specification_LSTMWeightParams()
        for path: WritableKeyPath<CoreML_Specification_LSTMWeightParams, CoreML_Specification_WeightParams> in [
            \.inputGateWeightMatrix, \.forgetGateWeightMatrix, \.blockInputWeightMatrix, \.outputGateWeightMatrix,
        ] { w[keyPath: path] = TestSpecs.weights([Float](repeating: 0.1, count: 6)) }
        for path: WritableKeyPath<CoreML_Specification_LSTMWeightParams, CoreML_Specification_WeightParams> in [
            \.inputGateRecursionMatrix, \.forgetGateRecursionMatrix, \.blockInputRecursionMatrix, \.outputGateRecursionMatrix,
        ] { w[keyPath: path] = TestSpecs.weights([Float](repeating: 0.1, count: 4)) }
        w.forgetGateBiasVector = TestSpecs.weights([1, 1])
        w.blockInputBiasVector = TestSpecs.weights([0, 0])
        w.outputGateBiasVector = TestSpecs.weights([0, 0])
        lstm.weightParams = w
        var model = Self.denseModel(hasBias: true, bias: [0, 0])
        model.description_p.input = [TestSpecs.array("x", [3])]
        model.neuralNetwork.layers = [TestSpecs.layer("lstm", ["x"], ["y"]) { $0.uniDirectionalLstm = lstm }]
        #expect(model.validationIssues().map(\.description)
            == ["invalid model: layer 'lstm': hasBiasVectors is set, but inputGateBiasVector holds no values; the layer's sizes need 2"])
        #expect(model.neuralNetwork.layers[0].parameterCount == 4 * 6 + 4 * 4 + 3 * 2)
    }

    @Test func twoInputBatchedMatmulWithTheBiasFlagFails() {
        var model = Self.denseModel(hasBias: true, bias: [0, 0])
        model.description_p.input = [TestSpecs.array("a", [2, 3]), TestSpecs.array("b", [3, 2])]
        model.neuralNetwork.layers = [TestSpecs.layer("mm", ["a", "b"], ["y"]) { $0.batchedMatmul.hasBias_p = true }]
        // batchedMatmul is a rank-N layer: Core ML allows it only under the exact array mapping.
        model.neuralNetwork.arrayInputShapeMapping = .exactArrayMapping
        #expect(Self.blobs(model.neuralNetwork.layers[0]).isEmpty)
        let issues = model.validationIssues().map(\.description)
        #expect(issues == ["invalid model: layer 'mm': hasBias is set, but a batchedMatmul with two inputs has no bias (only one input comes with weights)"])
    }

    @Test func aBlobStoredTwiceFails() {
        var model = Self.denseModel(hasBias: true, bias: [0, 0])
        model.neuralNetwork.layers[0].innerProduct.bias.float16Value = Data([0, 0x3C, 0, 0x3C])
        #expect(model.validationIssues().map(\.description)
            == ["invalid model: layer 'dense': bias stores values in more than one field (float32, float16, raw, int8); one is read"])
    }

    // MARK: The table's blobs and counts

    @Test func convolutionCountsFollowDeconvolutionAndGroups() {
        var params = CoreML_Specification_ConvolutionLayerParams()
        params.outputChannels = 6
        params.kernelChannels = 4
        params.nGroups = 2
        params.kernelSize = [3, 2]
        params.hasBias_p = true
        var layer = TestSpecs.layer("conv", ["x"], ["y"]) { $0.convolution = params }
        // [outputChannels, kernelChannels, kH, kW]
        #expect(Self.count(layer, "weights") == .exactly(6 * 4 * 3 * 2))
        #expect(Self.count(layer, "bias") == .exactly(6))
        // Deconvolution: [kernelChannels, outputChannels / nGroups, kH, kW]
        layer.convolution.isDeconvolution = true
        #expect(Self.count(layer, "weights") == .exactly(4 * 3 * 3 * 2))
        // Without a kernel size, Core ML's 3×3.
        layer.convolution.isDeconvolution = false
        layer.convolution.kernelSize = []
        #expect(Self.count(layer, "weights") == .exactly(6 * 4 * 3 * 3))
        layer.convolution.hasBias_p = false
        #expect(Self.blobs(layer) == ["weights"])
        // Weights taken from a second input: no static weights.
        layer.input = ["x", "w"]
        #expect(Self.blobs(layer).isEmpty)
    }

    @Test func otherLayerTypesListTheirBlobsByTheirFlags() {
        var embedding = TestSpecs.layer("e", ["x"], ["y"]) { $0.embedding.inputDim = 7; $0.embedding.outputChannels = 3 }
        #expect(Self.blobs(embedding) == ["weights"] && Self.count(embedding, "weights") == .exactly(21))
        embedding.embedding.hasBias_p = true
        #expect(Self.blobs(embedding) == ["weights", "bias"] && Self.count(embedding, "bias") == .exactly(3))

        let matmul = TestSpecs.layer("m", ["x"], ["y"]) {
            $0.batchedMatmul.weightMatrixFirstDimension = 4
            $0.batchedMatmul.weightMatrixSecondDimension = 5
            $0.batchedMatmul.hasBias_p = true
        }
        #expect(Self.count(matmul, "weights") == .exactly(20) && Self.count(matmul, "bias") == .exactly(5))

        var batchnorm = TestSpecs.layer("bn", ["x"], ["y"]) { $0.batchnorm.channels = 8 }
        #expect(Self.blobs(batchnorm) == ["gamma", "beta", "mean", "variance"])
        #expect(batchnorm.weightBlobs.map(\.isTrainable) == [true, true, false, false])
        batchnorm.batchnorm.computeMeanVar = true
        #expect(Self.blobs(batchnorm) == ["gamma", "beta"] && Self.count(batchnorm, "beta") == .exactly(8))

        var scale = TestSpecs.layer("s", ["x"], ["y"]) { $0.scale.shapeScale = [3, 1, 1] }
        #expect(Self.blobs(scale) == ["scale"] && Self.count(scale, "scale") == .exactly(3))
        scale.scale.hasBias_p = true
        #expect(Self.count(scale, "bias") == .fromInput)
        scale.scale.shapeBias = [1, 4, 5]
        #expect(Self.count(scale, "bias") == .exactly(20))

        let constant = TestSpecs.layer("c", [], ["y"]) { $0.loadConstant.shape = [2, 3, 4] }
        #expect(Self.count(constant, "data") == .exactly(24) && constant.weightBlobs.first?.isTrainable == false)

        let prelu = TestSpecs.layer("p", ["x"], ["y"]) { $0.activation.preLu.alpha = TestSpecs.weights([0.25]) }
        #expect(Self.blobs(prelu) == ["alpha"] && Self.count(prelu, "alpha") == .fromInput)
        let softplus = TestSpecs.layer("sp", ["x"], ["y"]) { $0.activation.parametricSoftplus = .init() }
        #expect(Self.blobs(softplus) == ["alpha", "beta"])
        #expect(Self.blobs(TestSpecs.layer("r", ["x"], ["y"]) { $0.activation.reLu = .init() }).isEmpty)

        var lstm = TestSpecs.layer("l", ["x"], ["y"]) {
            $0.uniDirectionalLstm.inputVectorSize = 3
            $0.uniDirectionalLstm.outputVectorSize = 5
        }
        #expect(lstm.weightBlobs.count == 8)
        #expect(Self.count(lstm, "blockInputWeightMatrix") == .exactly(15) && Self.count(lstm, "outputGateRecursionMatrix") == .exactly(25))
        lstm.uniDirectionalLstm.params.hasBiasVectors_p = true
        lstm.uniDirectionalLstm.params.hasPeepholeVectors_p = true
        #expect(lstm.weightBlobs.count == 15)
        #expect(Self.count(lstm, "forgetGatePeepholeVector") == .exactly(5))
        #expect(lstm.weightBlob(named: "inputGateBiasVector")?.flag == "hasBiasVectors")
    }

    @Test func forEachWeightWritesThroughTheTable() {
        var layer = Self.denseModel(hasBias: true, bias: [0, 0]).neuralNetwork.layers[0]
        layer.forEachWeight { blob, weights in weights.floatValue = weights.floatValue.map { $0 + 1 } }
        #expect(layer.innerProduct.weights.floatValue == [2, 3, 4, 5, 6, 7])
        #expect(layer.innerProduct.bias.floatValue == [1, 1])
    }

    // MARK: Half precision and quantized weights

    @Test func halfPrecisionBitPatterns() {
        #expect(HalfPrecision.float(fromBits: 0x3C00) == 1)
        #expect(HalfPrecision.float(fromBits: 0xC000) == -2)
        #expect(HalfPrecision.float(fromBits: 0x3555) == Float(0x400 + 0x155) / 0x400 / 4)  // (1 + 341/1024) · 2^-2 ≈ 1/3
        #expect(HalfPrecision.float(fromBits: 0x0001) == 0x1p-24)
        #expect(HalfPrecision.float(fromBits: 0x03FF) == 1023 * 0x1p-24)
        #expect(HalfPrecision.float(fromBits: 0x0400) == 0x1p-14)
        #expect(HalfPrecision.float(fromBits: 0x7BFF) == 65504)
        #expect(HalfPrecision.float(fromBits: 0x7C00) == .infinity)
        #expect(HalfPrecision.float(fromBits: 0xFC00) == -.infinity)
        #expect(HalfPrecision.float(fromBits: 0x7E00).isNaN)
        let negativeZero = HalfPrecision.float(fromBits: 0x8000)
        #expect(negativeZero == 0 && negativeZero.sign == .minus)
        #expect(HalfPrecision.bits(from: 1) == 0x3C00 && HalfPrecision.bits(from: -2) == 0xC000)
        #expect(HalfPrecision.bits(from: 0x1p-24) == 0x0001 && HalfPrecision.bits(from: 70000) == 0x7C00)
    }

    @Test func float16WeightsAreLittleEndianHalves() throws {
        var weights = CoreML_Specification_WeightParams()
        weights.float16Value = Data([0x00, 0x3C, 0x00, 0xC0, 0x01, 0x00, 0x00, 0x7C, 0xFF])  // odd trailing byte ignored
        #expect(weights.storage == .float16 && weights.count == 4)
        #expect(try weights.floatValues() == [1, -2, 0x1p-24, .infinity])
    }

    @Test func rawAndQuantizedWeightsDecode() throws {
        var raw = CoreML_Specification_WeightParams()
        raw.rawValue = Data([0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x20, 0xC0])  // 1.0, -2.5 little-endian
        #expect(try raw.floatValues() == [1, -2.5])

        // Five 2-bit codes 0, 1, 2, 3, 3 packed most-significant first: 00 01 10 11 | 11 000000.
        var linear = CoreML_Specification_WeightParams()
        linear.rawValue = Data([0b0001_1011, 0b1100_0000])
        linear.quantization.numberOfBits = 2
        linear.quantization.linearQuantization.scale = [0.5]
        linear.quantization.linearQuantization.bias = [1]
        #expect(try linear.floatValues(count: 5) == [1, 1.5, 2, 2.5, 2.5])
        #expect(linear.holds(5) && linear.holds(8) && !linear.holds(9))
        #expect(throws: LayerSpecificationError.self) { try linear.floatValues(count: 9) }

        var table = CoreML_Specification_WeightParams()
        table.rawValue = Data([0b1010_0000])
        table.quantization.numberOfBits = 1
        table.quantization.lookupTableQuantization.floatValue = [-1, 7]
        #expect(try table.floatValues(count: 4) == [7, -1, 7, -1])
        table.quantization.lookupTableQuantization.floatValue = [-1]
        #expect(throws: LayerSpecificationError.self) { try table.floatValues(count: 4) }
    }

    // MARK: Shapes

    @Test func leNetBlobShapesWithoutItsWeights() throws {
        var model = try Fixtures.model("lenet_updatable.mlmodel")
        // The shapes need no weight: take them all away.
        for index in model.neuralNetwork.layers.indices {
            model.neuralNetwork.layers[index].forEachWeight { _, weights in weights = .init() }
        }
        let shapes = try model.neuralNetworkBlobShapes()
        // 28×28 → 3×3 valid convolution (26) → 2×2/2 pooling (13) → 2×2 convolution (12) → pooling (6).
        #expect(shapes["image"] == [1, 28, 28])
        #expect(shapes["conv1_out"] == [32, 26, 26] && shapes["relu1_out"] == [32, 26, 26])
        #expect(shapes["pool1_out"] == [32, 13, 13])
        #expect(shapes["conv2_out"] == [32, 12, 12] && shapes["pool2_out"] == [32, 6, 6])
        #expect(shapes["flatten_out"] == [32 * 6 * 6, 1, 1])
        #expect(shapes["dense1_out"] == [500, 1, 1] && shapes["dense2_out"] == [10, 1, 1] && shapes["output"] == [10, 1, 1])
    }

    @Test func shapeRulesOfSeveralLayers() throws {
        var same = CoreML_Specification_ConvolutionLayerParams()
        same.outputChannels = 4
        same.kernelChannels = 3
        same.kernelSize = [3, 3]
        same.stride = [2, 2]
        same.same = .init()
        let conv = TestSpecs.layer("c", ["x"], ["y"]) { $0.convolution = same }
        #expect(try conv.outputShapes(for: [[3, 7, 8]]) == [[4, 4, 4]])  // ⌈7/2⌉, ⌈8/2⌉
        #expect(try conv.outputShapes(for: [[5, 3, 7, 8]]) == [[5, 4, 4, 4]])  // a sequence of 5
        let geometry = try #require(try same.geometry(height: 7, width: 8))
        #expect(geometry.padTop == 1 && geometry.padLeft == 0)  // 2 rows of padding, 1 column

        let concat = TestSpecs.layer("cat", ["a", "b"], ["y"]) { $0.concat = .init() }
        #expect(try concat.outputShapes(for: [[2, 4, 4], [3, 4, 4]]) == [[5, 4, 4]])
        let add = TestSpecs.layer("add", ["a", "b"], ["y"]) { $0.add = .init() }
        #expect(try add.outputShapes(for: [[1, 4, 4], [3, 1, 1]]) == [[3, 4, 4]])
        let flatten2D = TestSpecs.layer("f", ["x"], ["y"]) { $0.flattenTo2D.axis = -1 }
        #expect(try flatten2D.outputShapes(for: [[2, 3, 4]]) == [[6, 4]])
        let reshape = TestSpecs.layer("r", ["x"], ["y"]) { $0.reshapeStatic.targetShape = [-1, 6] }
        #expect(try reshape.outputShapes(for: [[2, 3, 4]]) == [[4, 6]])
        let lstm = TestSpecs.layer("l", ["x"], ["y", "h", "c"]) {
            $0.uniDirectionalLstm.inputVectorSize = 3
            $0.uniDirectionalLstm.outputVectorSize = 5
            $0.uniDirectionalLstm.params.sequenceOutput = true
        }
        #expect(try lstm.outputShapes(for: [[7, 3, 1, 1]]) == [[7, 5, 1, 1], [5, 1, 1], [5, 1, 1]])
    }

    @Test func shapeErrorsNameTheLayerAndInput() throws {
        var model = Self.denseModel(hasBias: true, bias: [0, 0])
        model.description_p.input = [TestSpecs.array("x", [4])]
        let layer = model.neuralNetwork.layers[0]
        #expect(throws: LayerSpecificationError("input 'x' has 4 values per position (shape 4×1×1), the layer expects 3")) {
            try layer.outputShapes(for: [[4, 1, 1]])
        }
        #expect(throws: ModelValidationError(location: "layer 'dense' (innerProduct)",
                                             message: "input 'x' has 4 values per position (shape 4×1×1), the layer expects 3")) {
            try model.neuralNetworkBlobShapes()
        }
    }
}

/// Ranks under Core ML's shape mappings: classic layers keep their input's rank and leading
/// dimensions; innerProduct, flatten, embedding and softmax follow the ranks Core ML documents.
extension LayerTableTests {
    private static func innerProduct(_ inputChannels: UInt64, _ outputChannels: UInt64) -> CoreML_Specification_NeuralNetworkLayer {
        TestSpecs.layer("fc", ["x"], ["y"]) {
            $0.innerProduct.inputChannels = inputChannels
            $0.innerProduct.outputChannels = outputChannels
        }
    }

    @Test func innerProductKeepsTheRankUnderTheExactMapping() throws {
        let fc = Self.innerProduct(10, 4)
        // Ranks 1–3 multiply along the last axis; 4 and 5 take C·H·W as the row.
        #expect(try fc.outputShapes(for: [[10]], exactMapping: true) == [[4]])
        #expect(try fc.outputShapes(for: [[1, 10]], exactMapping: true) == [[1, 4]])
        #expect(try fc.outputShapes(for: [[2, 3, 10]], exactMapping: true) == [[2, 3, 4]])
        #expect(try fc.outputShapes(for: [[1, 10, 1, 1]], exactMapping: true) == [[1, 4, 1, 1]])
        #expect(try fc.outputShapes(for: [[1, 1, 10, 1, 1]], exactMapping: true) == [[1, 1, 4, 1, 1]])
        #expect(try fc.outputShapes(for: [[1, 10, 1, 1]]) == [[1, 4, 1, 1]])
        // The rank-5 mapping's [C, H, W] is Core ML's [1, 1, C, H, W]: C·H·W is the row.
        #expect(try fc.outputShapes(for: [[10, 1, 1]]) == [[4, 1, 1]])
        #expect(try Self.innerProduct(12, 4).outputShapes(for: [[3, 2, 2]]) == [[4, 1, 1]])
        #expect(throws: LayerSpecificationError("input 'x' has shape 1×12; its last dimension must be inputChannels (10) for a rank-2 input")) {
            try fc.outputShapes(for: [[1, 12]], exactMapping: true)
        }
    }

    @Test func classicLayersKeepAnExactRank4Shape() throws {
        var conv = CoreML_Specification_ConvolutionLayerParams()
        conv.outputChannels = 4
        conv.kernelChannels = 3
        conv.kernelSize = [3, 3]
        conv.stride = [2, 2]
        conv.same = .init()
        #expect(try TestSpecs.layer("c", ["x"], ["y"]) { $0.convolution = conv }.outputShapes(for: [[1, 3, 7, 8]], exactMapping: true) == [[1, 4, 4, 4]])
        var pool = CoreML_Specification_PoolingLayerParams()
        pool.globalPooling = true
        pool.type = .average
        #expect(try TestSpecs.layer("p", ["x"], ["y"]) { $0.pooling = pool }.outputShapes(for: [[1, 3, 7, 8]], exactMapping: true) == [[1, 3, 1, 1]])
        let flatten = TestSpecs.layer("f", ["x"], ["y"]) { $0.flatten = .init() }
        #expect(try flatten.outputShapes(for: [[1, 3, 7, 8]], exactMapping: true) == [[1, 168, 1, 1]])
        #expect(try flatten.outputShapes(for: [[3, 7, 8]]) == [[168, 1, 1]])
        #expect(throws: LayerSpecificationError.self) { try flatten.outputShapes(for: [[1, 168]], exactMapping: true) }
        let reshape = TestSpecs.layer("r", ["x"], ["y"]) { $0.reshape.targetShape = [6, 4, 7] }
        #expect(try reshape.outputShapes(for: [[1, 3, 7, 8]], exactMapping: true) == [[1, 6, 4, 7]])
        let add = TestSpecs.layer("add", ["a", "b"], ["y"]) { $0.add = .init() }
        #expect(try add.outputShapes(for: [[1, 3, 1, 1], [1, 1, 7, 8]], exactMapping: true) == [[1, 3, 7, 8]])

        // A whole exact-mapped network: conv → relu → global pool → flatten → innerProduct → softmaxND.
        var model = CoreML_Specification_Model()
        model.specificationVersion = 4
        model.description_p.input = [TestSpecs.array("x", [1, 3, 7, 8])]
        model.description_p.output = [TestSpecs.array("probs", [1, 5])]
        model.neuralNetwork.arrayInputShapeMapping = .exactArrayMapping
        var fc = CoreML_Specification_InnerProductLayerParams()
        fc.inputChannels = 4
        fc.outputChannels = 5
        model.neuralNetwork.layers = [
            TestSpecs.layer("conv", ["x"], ["c"]) { $0.convolution = conv },
            TestSpecs.layer("relu", ["c"], ["r"]) { $0.activation.reLu = .init() },
            TestSpecs.layer("gap", ["r"], ["g"]) { $0.pooling = pool },
            TestSpecs.layer("flat", ["g"], ["f"]) { $0.flatten = .init() },
            TestSpecs.layer("fc", ["f"], ["logits"]) { $0.innerProduct = fc },
            TestSpecs.layer("sm", ["logits"], ["probs"]) { $0.softmaxNd.axis = 1 },
        ]
        let shapes = try model.neuralNetworkBlobShapes()
        #expect(shapes["c"] == [1, 4, 4, 4] && shapes["r"] == [1, 4, 4, 4] && shapes["g"] == [1, 4, 1, 1])
        #expect(shapes["f"] == [1, 4, 1, 1] && shapes["logits"] == [1, 5, 1, 1] && shapes["probs"] == [1, 5, 1, 1])
    }

    @Test func classicSoftmaxNeedsRankThree() throws {
        let softmax = TestSpecs.layer("sm", ["x"], ["y"]) { $0.softmax = .init() }
        #expect(try softmax.outputShapes(for: [[1, 10, 1, 1]], exactMapping: true) == [[1, 10, 1, 1]])
        let message = "input 'x' has shape 1×10 (rank 2); softmax normalizes along the channel axis (−3) and needs rank 3 or more; use softmaxND with axis −1 for a vector"
        #expect(throws: LayerSpecificationError(message)) { try softmax.outputShapes(for: [[1, 10]], exactMapping: true) }
        var model = HostileModels.network([("x", [10])], [softmax], outputShape: [10])
        model.neuralNetwork.arrayInputShapeMapping = .exactArrayMapping
        #expect(throws: ModelValidationError(location: "layer 'sm' (softmax)", message: "input 'x' has shape 10 (rank 1); softmax normalizes along the channel axis (−3) and needs rank 3 or more; use softmaxND with axis −1 for a vector")) {
            try model.neuralNetworkBlobShapes()
        }
    }

    @Test func rank4ImageMappingGivesImagesABatchAxis() throws {
        var model = CoreML_Specification_Model()
        model.specificationVersion = 4
        model.description_p.input = [TestSpecs.feature("image") {
            $0.imageType.width = 5
            $0.imageType.height = 4
            $0.imageType.colorSpace = .rgb
        }]
        model.description_p.output = [TestSpecs.array("y", [1, 3, 4, 5])]
        model.neuralNetwork.layers = [TestSpecs.layer("relu", ["image"], ["y"]) { $0.activation.reLu = .init() }]
        #expect(try model.neuralNetworkBlobShapes()["y"] == [3, 4, 5])
        model.neuralNetwork.imageInputShapeMapping = .rank4ImageMapping
        #expect(try model.neuralNetworkBlobShapes()["image"] == [1, 3, 4, 5])
        #expect(try model.neuralNetworkBlobShapes()["y"] == [1, 3, 4, 5])
    }

    @Test func rankNLayersNeedTheExactArrayMapping() throws {
        var model = HostileModels.network([("x", [1, 10])], [TestSpecs.layer("sm", ["x"], ["y"]) { $0.softmaxNd.axis = -1 }], outputShape: [1, 10])
        #expect(model.validationIssues().map(\.description) == [
            "invalid model: layer 'sm' (softmaxND): this softmaxND layer needs specification version 4 (iOS 13) or later, which Core ML does not allow with arrayInputShapeMapping RANK5_ARRAY_MAPPING (the default); set it to EXACT_ARRAY_MAPPING",
        ])
        model.neuralNetwork.arrayInputShapeMapping = .exactArrayMapping
        #expect(model.validationIssues().isEmpty)
        // The rule is about multi-array inputs: an image-only network may use the rank-N layers.
        var image = model
        image.neuralNetwork.arrayInputShapeMapping = .rank5ArrayMapping
        image.description_p.input = [TestSpecs.feature("x") {
            $0.imageType.width = 10
            $0.imageType.height = 1
            $0.imageType.colorSpace = .grayscale
        }]
        image.description_p.output = [TestSpecs.array("y", [1, 1, 10])]
        #expect(image.validationIssues().isEmpty)
        // Core ML: the rank-4 image mapping needs the exact array mapping when there are multi-arrays.
        var mixed = HostileModels.dense()
        mixed.neuralNetwork.imageInputShapeMapping = .rank4ImageMapping
        #expect(mixed.validationIssues().map(\.description) == [
            "invalid model: arrayInputShapeMapping RANK5_ARRAY_MAPPING (the default) cannot be used with imageInputShapeMapping RANK4_IMAGE_MAPPING; set it to EXACT_ARRAY_MAPPING",
        ])
    }
}
