// MakeSeeds: writes the generated part of the fuzz seed corpus (`Fuzz/make-seeds.sh` runs it).
//
//     MakeSeeds MODEL_FOLDER DATA_FOLDER
//     MakeSeeds --check MODEL_FILE ...     (only print whether each model validates and predicts)
//
// Models: one small neural network per layer type the engine runs (and a few variants: image
// inputs with preprocessing, half-precision and quantized weights, a classifier with a loss layer
// and an optimizer, a pipeline, a GLM classifier), each a few hundred bytes, and ML Programs
// (`ProgramSeeds.swift`: a long chain, cond and while_loop, constexpr chains, shape operations with
// int64 parameters, attention), a few KB at most, so that mutations start from models that pass validation and reach the engine. Each model is checked here and its
// status printed (validates, predicts), so a seed that stops reaching the engine shows up.
//
// Data: inputs for FuzzData in its layout (format byte, options byte, file): CSV data sets, CSV
// and JSON tables, IDX pairs (plain and gzipped), NPY arrays and pairs, JSON and CSV arrays.
// Images come from the test fixtures (copied by make-seeds.sh).

import CoreMLSpec
import Foundation
import OpenCoreML

typealias Spec = CoreML_Specification_Model
typealias Layer = CoreML_Specification_NeuralNetworkLayer

// MARK: Building blocks

func arrayType(_ shape: [Int64], _ dataType: CoreML_Specification_ArrayFeatureType.ArrayDataType = .float32)
    -> CoreML_Specification_FeatureType
{
    var type = CoreML_Specification_FeatureType()
    type.multiArrayType.shape = shape
    type.multiArrayType.dataType = dataType
    return type
}

func feature(_ name: String, _ type: CoreML_Specification_FeatureType) -> CoreML_Specification_FeatureDescription {
    var description = CoreML_Specification_FeatureDescription()
    description.name = name
    description.type = type
    return description
}

func weights(_ count: Int, scale: Float = 0.1) -> CoreML_Specification_WeightParams {
    var params = CoreML_Specification_WeightParams()
    params.floatValue = (0..<count).map { Float(($0 * 7) % 11 - 5) * scale }
    return params
}

func layer(_ name: String, _ inputs: [String], _ outputs: [String], _ set: (inout Layer) -> Void) -> Layer {
    var layer = Layer()
    layer.name = name
    layer.input = inputs
    layer.output = outputs
    set(&layer)
    return layer
}

/// A `neuralNetwork` model from `inputs` to `outputs` with these layers.
func network(
    _ inputs: [CoreML_Specification_FeatureDescription], _ outputs: [CoreML_Specification_FeatureDescription],
    _ layers: [Layer], version: Int32 = 4, exact: Bool = false
) -> Spec {
    var spec = Spec()
    spec.specificationVersion = version
    spec.description_p.input = inputs
    spec.description_p.output = outputs
    spec.neuralNetwork.layers = layers
    if exact { spec.neuralNetwork.arrayInputShapeMapping = .exactArrayMapping }
    return spec
}

/// One layer from array input `x` of `shape` to output `y` of `outShape`.
func single(_ shape: [Int64], _ outShape: [Int64], exact: Bool = false, version: Int32 = 4, _ set: (inout Layer) -> Void) -> Spec {
    network([feature("x", arrayType(shape))], [feature("y", arrayType(outShape))],
            [layer("l", ["x"], ["y"], set)], version: version, exact: exact)
}

func activation(_ set: (inout CoreML_Specification_ActivationParams) -> Void) -> Spec {
    single([2, 3, 3], [2, 3, 3]) { set(&$0.activation) }
}

// MARK: The models

func models() -> [(String, Spec)] {
    var out: [(String, Spec)] = []
    func add(_ name: String, _ spec: Spec) { out.append((name, spec)) }

    // Activations, each kind once.
    add("act-relu", activation { $0.reLu = .init() })
    add("act-leaky", activation { $0.leakyReLu.alpha = 0.1 })
    add("act-thresholded", activation { $0.thresholdedReLu.alpha = 0.2 })
    add("act-prelu", activation { $0.preLu.alpha = weights(2) })
    add("act-tanh", activation { $0.tanh = .init() })
    add("act-scaledtanh", activation { $0.scaledTanh.alpha = 1.5; $0.scaledTanh.beta = 0.5 })
    add("act-sigmoid", activation { $0.sigmoid = .init() })
    add("act-hardsigmoid", activation { $0.sigmoidHard.alpha = 0.2; $0.sigmoidHard.beta = 0.5 })
    add("act-linear", activation { $0.linear.alpha = 2; $0.linear.beta = 1 })
    add("act-elu", activation { $0.elu.alpha = 1 })
    add("act-softsign", activation { $0.softsign = .init() })
    add("act-softplus", activation { $0.softplus = .init() })
    add("act-psoftplus", activation { $0.parametricSoftplus.alpha = weights(2); $0.parametricSoftplus.beta = weights(2) })

    // Convolutions: valid and same padding, groups, dilation, bias, deconvolution.
    add("conv-valid", single([2, 5, 5], [3, 3, 3]) {
        $0.convolution.outputChannels = 3; $0.convolution.kernelChannels = 2; $0.convolution.nGroups = 1
        $0.convolution.kernelSize = [3, 3]; $0.convolution.stride = [1, 1]; $0.convolution.valid = .init()
        $0.convolution.hasBias_p = true; $0.convolution.weights = weights(3 * 2 * 9); $0.convolution.bias = weights(3)
    })
    add("conv-same-stride-groups", single([4, 6, 6], [4, 3, 3]) {
        $0.convolution.outputChannels = 4; $0.convolution.kernelChannels = 2; $0.convolution.nGroups = 2
        $0.convolution.kernelSize = [3, 3]; $0.convolution.stride = [2, 2]; $0.convolution.dilationFactor = [1, 1]
        $0.convolution.same.asymmetryMode = .topLeftHeavy; $0.convolution.weights = weights(4 * 2 * 9)
    })
    add("conv-dilated-padded", single([1, 7, 7], [2, 5, 5]) {
        $0.convolution.outputChannels = 2; $0.convolution.kernelChannels = 1; $0.convolution.nGroups = 1
        $0.convolution.kernelSize = [3, 3]; $0.convolution.stride = [1, 1]; $0.convolution.dilationFactor = [2, 2]
        var border = CoreML_Specification_BorderAmounts.EdgeSizes(); border.startEdgeSize = 1; border.endEdgeSize = 1
        $0.convolution.valid.paddingAmounts.borderAmounts = [border, border]
        $0.convolution.weights = weights(2 * 9)
    })
    add("conv-depthwise", single([3, 4, 4], [3, 4, 4]) {
        $0.convolution.outputChannels = 3; $0.convolution.kernelChannels = 1; $0.convolution.nGroups = 3
        $0.convolution.kernelSize = [3, 3]; $0.convolution.stride = [1, 1]; $0.convolution.same = .init()
        $0.convolution.weights = weights(3 * 9)
    })
    add("deconv", single([2, 3, 3], [1, 5, 5]) {
        $0.convolution.outputChannels = 1; $0.convolution.kernelChannels = 2; $0.convolution.nGroups = 1
        $0.convolution.kernelSize = [3, 3]; $0.convolution.stride = [1, 1]; $0.convolution.valid = .init()
        $0.convolution.isDeconvolution = true; $0.convolution.outputShape = [5, 5]; $0.convolution.weights = weights(2 * 9)
    })

    // Pooling: max, average, L2, global, padding kinds.
    for (name, type) in [("max", CoreML_Specification_PoolingLayerParams.PoolingType.max), ("avg", .average), ("l2", .l2)] {
        add("pool-\(name)", single([2, 4, 4], [2, 2, 2]) {
            $0.pooling.type = type; $0.pooling.kernelSize = [2, 2]; $0.pooling.stride = [2, 2]; $0.pooling.valid = .init()
        })
    }
    add("pool-global", single([3, 4, 5], [3, 1, 1]) { $0.pooling.type = .average; $0.pooling.globalPooling = true; $0.pooling.valid = .init() })
    add("pool-same-exclude", single([1, 5, 5], [1, 3, 3]) {
        $0.pooling.type = .average; $0.pooling.kernelSize = [3, 3]; $0.pooling.stride = [2, 2]
        $0.pooling.same = .init(); $0.pooling.avgPoolExcludePadding = true
    })
    add("pool-lastpixel", single([1, 5, 5], [1, 3, 3]) {
        $0.pooling.type = .max; $0.pooling.kernelSize = [2, 2]; $0.pooling.stride = [2, 2]
        $0.pooling.includeLastPixel.paddingAmounts = [0, 0]
    })

    // Dense and friends.
    add("innerproduct", single([6], [4]) {
        $0.innerProduct.inputChannels = 6; $0.innerProduct.outputChannels = 4; $0.innerProduct.hasBias_p = true
        $0.innerProduct.weights = weights(24); $0.innerProduct.bias = weights(4)
    })
    add("innerproduct-half", single([4], [2]) {
        $0.innerProduct.inputChannels = 4; $0.innerProduct.outputChannels = 2
        $0.innerProduct.weights.float16Value = Data((0..<8).flatMap { i -> [UInt8] in [0x00, UInt8(0x38 + i % 4)] })
    })
    add("innerproduct-quant-linear", single([4], [2]) {
        $0.innerProduct.inputChannels = 4; $0.innerProduct.outputChannels = 2
        $0.innerProduct.weights.rawValue = Data((0..<8).map { UInt8($0 * 30) })
        $0.innerProduct.weights.quantization.numberOfBits = 8
        $0.innerProduct.weights.quantization.linearQuantization.scale = [0.01]
        $0.innerProduct.weights.quantization.linearQuantization.bias = [-1]
    })
    add("innerproduct-quant-lut", single([4], [2]) {
        $0.innerProduct.inputChannels = 4; $0.innerProduct.outputChannels = 2
        $0.innerProduct.weights.rawValue = Data([0b0001_1011, 0b1110_0100])  // 8 two-bit indices
        $0.innerProduct.weights.quantization.numberOfBits = 2
        $0.innerProduct.weights.quantization.lookupTableQuantization.floatValue = [-1, -0.5, 0.5, 1]
    })
    add("embedding", single([1], [3]) {
        $0.embedding.inputDim = 5; $0.embedding.outputChannels = 3; $0.embedding.hasBias_p = true
        $0.embedding.weights = weights(15); $0.embedding.bias = weights(3)
    })
    add("batchnorm", single([2, 2, 2], [2, 2, 2]) {
        $0.batchnorm.channels = 2; $0.batchnorm.epsilon = 1e-5
        $0.batchnorm.gamma = weights(2); $0.batchnorm.beta = weights(2); $0.batchnorm.mean = weights(2)
        var variance = CoreML_Specification_WeightParams(); variance.floatValue = [1, 2]; $0.batchnorm.variance = variance
    })
    add("instancenorm", single([2, 3, 3], [2, 3, 3]) {
        $0.batchnorm.channels = 2; $0.batchnorm.computeMeanVar = true; $0.batchnorm.instanceNormalization = true
        $0.batchnorm.epsilon = 1e-5; $0.batchnorm.gamma = weights(2); $0.batchnorm.beta = weights(2)
    })
    add("l2normalize", single([3, 2, 2], [3, 2, 2]) { $0.l2Normalize.epsilon = 1e-6 })
    add("softmax", single([5], [5]) { $0.softmax = .init() })

    // Shape and elementwise layers.
    for (name, kind) in [("constant", 0), ("reflection", 1), ("replication", 2)] {
        add("padding-\(name)", single([1, 3, 3], [1, 5, 6]) {
            var rows = CoreML_Specification_BorderAmounts.EdgeSizes(); rows.startEdgeSize = 1; rows.endEdgeSize = 1
            var columns = CoreML_Specification_BorderAmounts.EdgeSizes(); columns.startEdgeSize = 1; columns.endEdgeSize = 2
            $0.padding.paddingAmounts.borderAmounts = [rows, columns]
            switch kind {
            case 0: $0.padding.constant.value = 0.5
            case 1: $0.padding.reflection = .init()
            default: $0.padding.replication = .init()
            }
        })
    }
    add("upsample-nn", single([1, 2, 2], [1, 4, 6]) { $0.upsample.scalingFactor = [2, 3]; $0.upsample.mode = .nn })
    add("upsample-bilinear", single([1, 2, 2], [1, 4, 4]) {
        $0.upsample.scalingFactor = [2, 2]; $0.upsample.mode = .bilinear; $0.upsample.linearUpsampleMode = .alignCornersTrue
    })
    add("upsample-fractional", single([1, 2, 2], [1, 3, 3]) {
        $0.upsample.fractionalScalingFactor = [1.5, 1.5]; $0.upsample.mode = .bilinear; $0.upsample.linearUpsampleMode = .alignCornersFalse
    })
    for (name, op) in [("sqrt", CoreML_Specification_UnaryFunctionLayerParams.Operation.sqrt), ("rsqrt", .rsqrt),
                       ("inverse", .inverse), ("power", .power), ("exp", .exp), ("log", .log), ("abs", .abs),
                       ("threshold", .threshold)] {
        add("unary-\(name)", single([4], [4]) {
            $0.unary.type = op; $0.unary.alpha = 2; $0.unary.epsilon = 1e-6; $0.unary.scale = 1; $0.unary.shift = 1
        })
    }
    add("clip", single([4], [4]) { $0.clip.minVal = -0.25; $0.clip.maxVal = 0.25 })
    add("bias", single([2, 2, 2], [2, 2, 2]) { $0.bias.shape = [2, 1, 1]; $0.bias.bias = weights(2) })
    add("scale", single([2, 2, 2], [2, 2, 2]) {
        $0.scale.shapeScale = [2, 1, 1]; $0.scale.scale = weights(2)
        $0.scale.hasBias_p = true; $0.scale.shapeBias = [1]; $0.scale.bias = weights(1)
    })
    add("reshape", single([2, 2, 3], [3, 2, 2]) { $0.reshape.targetShape = [3, 2, 2]; $0.reshape.mode = .channelLast })
    add("flatten", single([2, 2, 2], [8]) { $0.flatten.mode = .channelLast })
    add("permute", single([2, 3, 4], [4, 2, 3]) { $0.permute.axis = [0, 3, 1, 2] })
    add("softmaxnd", single([2, 3], [2, 3], exact: true) { $0.softmaxNd.axis = -1 })
    add("flatten2d", single([2, 3, 2], [2, 6], exact: true) { $0.flattenTo2D.axis = 1 })
    add("reshapestatic", single([2, 3, 2], [3, 4], exact: true) { $0.reshapeStatic.targetShape = [3, 4] })
    add("batchedmatmul", single([2, 3], [2, 2], exact: true) {
        $0.batchedMatmul.weightMatrixFirstDimension = 3; $0.batchedMatmul.weightMatrixSecondDimension = 2
        $0.batchedMatmul.hasBias_p = true; $0.batchedMatmul.weights = weights(6); $0.batchedMatmul.bias = weights(2)
    })

    // Layers of two inputs, and constants.
    let two = [feature("a", arrayType([2, 2, 2])), feature("b", arrayType([2, 2, 2]))]
    add("add", network(two, [feature("y", arrayType([2, 2, 2]))], [layer("l", ["a", "b"], ["y"]) { $0.add.alpha = 0 }]))
    add("add-alpha", single([3], [3]) { $0.add.alpha = 1.5 })
    add("multiply", network(two, [feature("y", arrayType([2, 2, 2]))], [layer("l", ["a", "b"], ["y"]) { $0.multiply.alpha = 1 }]))
    add("concat", network(two, [feature("y", arrayType([4, 2, 2]))], [layer("l", ["a", "b"], ["y"]) { $0.concat = .init() }]))
    add("concatnd", network([feature("a", arrayType([2, 3])), feature("b", arrayType([2, 1]))], [feature("y", arrayType([2, 4]))],
                            [layer("l", ["a", "b"], ["y"]) { $0.concatNd.axis = 1 }], exact: true))
    add("batchedmatmul-two", network([feature("a", arrayType([2, 3])), feature("b", arrayType([3, 2]))], [feature("y", arrayType([2, 2]))],
                                     [layer("l", ["a", "b"], ["y"]) { $0.batchedMatmul.transposeA = false }], exact: true))
    add("loadconstant", network([feature("x", arrayType([2, 1, 1]))], [feature("y", arrayType([2, 1, 1]))], [
        layer("c", [], ["k"]) { $0.loadConstant.shape = [2, 1, 1]; $0.loadConstant.data = weights(2) },
        layer("l", ["x", "k"], ["y"]) { $0.add = .init() },
    ]))

    // A recurrent layer over a sequence.
    add("lstm", single([3], [2]) {
        var lstm = CoreML_Specification_UniDirectionalLSTMLayerParams()
        lstm.inputVectorSize = 3; lstm.outputVectorSize = 2
        var sigmoid = CoreML_Specification_ActivationParams(); sigmoid.sigmoid = .init()
        var tanh = CoreML_Specification_ActivationParams(); tanh.tanh = .init()
        lstm.activations = [sigmoid, tanh, tanh]
        lstm.params.hasBiasVectors_p = true; lstm.params.forgetBias = true; lstm.params.hasPeepholeVectors_p = true
        lstm.params.cellClipThreshold = 50
        var w = CoreML_Specification_LSTMWeightParams()
        w.inputGateWeightMatrix = weights(6); w.forgetGateWeightMatrix = weights(6)
        w.blockInputWeightMatrix = weights(6); w.outputGateWeightMatrix = weights(6)
        w.inputGateRecursionMatrix = weights(4); w.forgetGateRecursionMatrix = weights(4)
        w.blockInputRecursionMatrix = weights(4); w.outputGateRecursionMatrix = weights(4)
        w.inputGateBiasVector = weights(2); w.forgetGateBiasVector = weights(2)
        w.blockInputBiasVector = weights(2); w.outputGateBiasVector = weights(2)
        w.inputGatePeepholeVector = weights(2); w.forgetGatePeepholeVector = weights(2); w.outputGatePeepholeVector = weights(2)
        lstm.weightParams = w
        $0.uniDirectionalLstm = lstm
    })

    // A tiny updatable LeNet classifier: image input with a scaler, conv → relu → pool → flatten →
    // dense → softmax, a cross-entropy loss and Adam (the shape of the 2.3 MB fixture, ~1 KB).
    add("lenet-tiny-classifier", tinyLeNet(image: true))
    add("lenet-tiny-array-sgd", tinyLeNet(image: false))

    // Colour image input with a mean image, to a regressor.
    var colour = CoreML_Specification_FeatureType()
    colour.imageType.width = 3; colour.imageType.height = 2; colour.imageType.colorSpace = .bgr
    var regressor = Spec()
    regressor.specificationVersion = 4
    regressor.description_p.input = [feature("image", colour)]
    regressor.description_p.output = [feature("y", arrayType([3, 2, 3]))]
    var mean = CoreML_Specification_NeuralNetworkPreprocessing()
    mean.featureName = "image"; mean.meanImage.meanImage = [Float](repeating: 100, count: 18)
    regressor.neuralNetworkRegressor.preprocessing = [mean]
    regressor.neuralNetworkRegressor.layers = [layer("l", ["image"], ["y"]) { $0.activation.reLu = .init() }]
    add("regressor-image-mean", regressor)

    // Flexible input shapes.
    var ranged = arrayType([1, 4])
    var range = CoreML_Specification_SizeRange(); range.lowerBound = 1; range.upperBound = -1
    var fixed = CoreML_Specification_SizeRange(); fixed.lowerBound = 4; fixed.upperBound = 4
    ranged.multiArrayType.shapeRange.sizeRanges = [range, fixed]
    add("flexible-range", network([feature("x", ranged)], [feature("y", arrayType([1, 4]))],
                                  [layer("l", ["x"], ["y"]) { $0.softmaxNd.axis = -1 }], exact: true))
    var enumerated = arrayType([2])
    var first = CoreML_Specification_ArrayFeatureType.Shape(); first.shape = [2]
    var second = CoreML_Specification_ArrayFeatureType.Shape(); second.shape = [5]
    enumerated.multiArrayType.enumeratedShapes.shapes = [first, second]
    add("flexible-enumerated", network([feature("x", enumerated)], [feature("y", arrayType([2]))],
                                       [layer("l", ["x"], ["y"]) { $0.activation.tanh = .init() }]))

    // A GLM classifier and a pipeline of two networks.
    var glm = Spec()
    glm.specificationVersion = 1
    glm.description_p.input = [feature("x", arrayType([2], .double))]
    var int64Type = CoreML_Specification_FeatureType(); int64Type.int64Type = .init()
    var dictionary = CoreML_Specification_FeatureType(); dictionary.dictionaryType.int64KeyType = .init()
    glm.description_p.output = [feature("label", int64Type), feature("probabilities", dictionary)]
    glm.description_p.predictedFeatureName = "label"
    glm.description_p.predictedProbabilitiesName = "probabilities"
    var row = CoreML_Specification_GLMClassifier.DoubleArray(); row.value = [0.5, -0.25]
    glm.glmClassifier.weights = [row]
    glm.glmClassifier.offset = [0.1]
    glm.glmClassifier.int64ClassLabels.vector = [3, 7]
    add("glm-binary-int64", glm)

    var pipeline = Spec()
    pipeline.specificationVersion = 4
    pipeline.description_p.input = [feature("x", arrayType([4]))]
    pipeline.description_p.output = [feature("z", arrayType([4]))]
    let stage1 = network([feature("x", arrayType([4]))], [feature("h", arrayType([4]))], [layer("a", ["x"], ["h"]) { $0.activation.sigmoid = .init() }])
    let stage2 = network([feature("h", arrayType([4]))], [feature("z", arrayType([4]))], [layer("b", ["h"], ["z"]) { $0.softmax = .init() }])
    pipeline.pipeline.models = [stage1, stage2]
    pipeline.pipeline.names = ["first", "second"]
    add("pipeline-two-networks", pipeline)
    return out
}

func tinyLeNet(image: Bool) -> Spec {
    var spec = Spec()
    spec.specificationVersion = 4
    spec.isUpdatable = true
    var input = arrayType([1, 6, 6])
    if image {
        input = CoreML_Specification_FeatureType()
        input.imageType.width = 6; input.imageType.height = 6; input.imageType.colorSpace = .grayscale
    }
    var stringType = CoreML_Specification_FeatureType(); stringType.stringType = .init()
    var probabilities = CoreML_Specification_FeatureType(); probabilities.dictionaryType.stringKeyType = .init()
    spec.description_p.input = [feature("image", input)]
    spec.description_p.output = [feature("probabilities", probabilities), feature("label", stringType)]
    spec.description_p.trainingInput = [feature("image", input), feature("label", stringType)]
    spec.description_p.predictedFeatureName = "label"
    spec.description_p.predictedProbabilitiesName = "probabilities"
    var classifier = CoreML_Specification_NeuralNetworkClassifier()
    if image {
        var scaler = CoreML_Specification_NeuralNetworkPreprocessing()
        scaler.featureName = "image"; scaler.scaler.channelScale = 1 / 255.0
        classifier.preprocessing = [scaler]
    }
    classifier.layers = [
        layer("conv", ["image"], ["c"]) {
            $0.convolution.outputChannels = 2; $0.convolution.kernelChannels = 1; $0.convolution.nGroups = 1
            $0.convolution.kernelSize = [3, 3]; $0.convolution.stride = [1, 1]; $0.convolution.valid = .init()
            $0.convolution.hasBias_p = true; $0.convolution.weights = weights(18); $0.convolution.bias = weights(2)
            $0.convolution.weights.isUpdatable = true; $0.convolution.bias.isUpdatable = true; $0.isUpdatable = true
        },
        layer("relu", ["c"], ["r"]) { $0.activation.reLu = .init() },
        layer("pool", ["r"], ["p"]) {
            $0.pooling.type = .max; $0.pooling.kernelSize = [2, 2]; $0.pooling.stride = [2, 2]; $0.pooling.valid = .init()
        },
        layer("flatten", ["p"], ["f"]) { $0.flatten = .init() },
        layer("dense", ["f"], ["d"]) {
            $0.innerProduct.inputChannels = 8; $0.innerProduct.outputChannels = 3; $0.innerProduct.hasBias_p = true
            $0.innerProduct.weights = weights(24); $0.innerProduct.bias = weights(3)
            $0.innerProduct.weights.isUpdatable = true; $0.innerProduct.bias.isUpdatable = true; $0.isUpdatable = true
        },
        layer("softmax", ["d"], ["probabilities_out"]) { $0.softmax = .init() },
    ]
    classifier.stringClassLabels.vector = ["a", "b", "c"]
    classifier.labelProbabilityLayerName = "probabilities_out"
    var loss = CoreML_Specification_LossLayer()
    loss.name = "loss"
    loss.categoricalCrossEntropyLossLayer.input = "probabilities_out"
    loss.categoricalCrossEntropyLossLayer.target = "label"
    classifier.updateParams.lossLayers = [loss]
    if image {
        classifier.updateParams.optimizer.adamOptimizer.learningRate.defaultValue = 0.001
        classifier.updateParams.optimizer.adamOptimizer.learningRate.range.maxValue = 1
        classifier.updateParams.optimizer.adamOptimizer.miniBatchSize.defaultValue = 4
        classifier.updateParams.optimizer.adamOptimizer.miniBatchSize.range.minValue = 1
        classifier.updateParams.optimizer.adamOptimizer.miniBatchSize.range.maxValue = 16
        classifier.updateParams.optimizer.adamOptimizer.beta1.defaultValue = 0.9
        classifier.updateParams.optimizer.adamOptimizer.beta1.range.maxValue = 1
        classifier.updateParams.optimizer.adamOptimizer.beta2.defaultValue = 0.999
        classifier.updateParams.optimizer.adamOptimizer.beta2.range.maxValue = 1
        classifier.updateParams.optimizer.adamOptimizer.eps.defaultValue = 1e-8
        classifier.updateParams.optimizer.adamOptimizer.eps.range.maxValue = 1
    } else {
        classifier.updateParams.optimizer.sgdOptimizer.learningRate.defaultValue = 0.01
        classifier.updateParams.optimizer.sgdOptimizer.learningRate.range.maxValue = 1
        classifier.updateParams.optimizer.sgdOptimizer.miniBatchSize.defaultValue = 2
        classifier.updateParams.optimizer.sgdOptimizer.miniBatchSize.set.values = [1, 2, 4]
        classifier.updateParams.optimizer.sgdOptimizer.momentum.defaultValue = 0.5
        classifier.updateParams.optimizer.sgdOptimizer.momentum.range.maxValue = 1
    }
    classifier.updateParams.epochs.defaultValue = 2
    classifier.updateParams.epochs.set.values = [1, 2, 5]
    classifier.updateParams.shuffle.defaultValue = true
    classifier.updateParams.seed.defaultValue = 1
    spec.neuralNetworkClassifier = classifier
    return spec
}

// MARK: Data seeds (FuzzData's layout: format byte, options byte, file)

enum DataFormat: UInt8 {  // FuzzData's `Format`, in the same order
    case datasetCSV, tableCSV, tableCSVOptions, tableJSON, datasetIDX, arrayNPY, datasetNPYPair, arrayJSON, arrayCSV, image
}

func npy(_ descr: String, _ shape: [Int], _ payload: [UInt8]) -> [UInt8] {
    let shapeText = shape.count == 1 ? "(\(shape[0]),)" : "(" + shape.map(String.init).joined(separator: ", ") + ")"
    var header = "{'descr': '\(descr)', 'fortran_order': False, 'shape': \(shapeText), }"
    while (10 + header.utf8.count + 1) % 64 != 0 { header += " " }
    header += "\n"
    let length = UInt16(header.utf8.count)
    return [0x93] + Array("NUMPY".utf8) + [1, 0, UInt8(length & 0xff), UInt8(length >> 8)] + Array(header.utf8) + payload
}

func littleEndian<T: FixedWidthInteger>(_ values: [T]) -> [UInt8] {
    values.flatMap { value in withUnsafeBytes(of: value.littleEndian) { Array($0) } }
}

func float32s(_ values: [Float]) -> [UInt8] { littleEndian(values.map(\.bitPattern)) }

func bigEndian32(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }

func idxPair(count: Int, rows: Int, columns: Int) -> ([UInt8], [UInt8]) {
    let images = bigEndian32(0x0803) + bigEndian32(UInt32(count)) + bigEndian32(UInt32(rows)) + bigEndian32(UInt32(columns))
        + (0..<(count * rows * columns)).map { UInt8(($0 * 37) % 256) }
    let labels = bigEndian32(0x0801) + bigEndian32(UInt32(count)) + (0..<count).map { UInt8($0 % 10) }
    return (images, labels)
}

func pair(_ first: [UInt8], _ second: [UInt8]) -> [UInt8] {
    [UInt8(first.count & 0xff), UInt8(first.count >> 8)] + first + second
}

func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["gzip", "-9", "-n", "-c"]
    let input = Pipe(), output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    input.fileHandleForWriting.write(Data(bytes))
    try input.fileHandleForWriting.close()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return [UInt8](data)
}

func dataSeeds() throws -> [(String, [UInt8])] {
    var out: [(String, [UInt8])] = []
    func add(_ name: String, _ format: DataFormat, _ options: UInt8, _ body: [UInt8]) {
        out.append((name, [format.rawValue, options] + body))
    }
    func text(_ string: String) -> [UInt8] { Array(string.utf8) }

    add("dataset-csv-header", .datasetCSV, 0, text("label,p0,p1,p2\n0,0,128,255\n1,3,4,5\n2,9,8,7\n"))
    add("dataset-csv-plain", .datasetCSV, 1, text("3,0.5,0.25\n1,1e-3,2\r\n0,-0,7\n"))
    add("dataset-csv-gzip", .datasetCSV, 0, try gzip(text("0,1,2,3\n1,4,5,6\n")))
    add("table-csv", .tableCSV, 0, text("name,count,ratio,note\nab,1,0.5,\"x, y\"\ncd,NA,1e3,\"he said \"\"hi\"\"\"\nef,3,,plain\n"))
    add("table-csv-escapes", .tableCSV, 0, text("a,b\n\"line\\nbreak\",\"tab\\tq\\\"\"\n\"multi\nline\",2\n"))
    add("table-csv-options-semicolon", .tableCSVOptions, 0b0000_1010, text("#comment\nx;y\n1; 2\n3;4 # tail\n"))
    add("table-csv-options-tab-cr", .tableCSVOptions, 0b1001_0100, text("1\t'a\tb'\t?\r2\t'c'\t3\r"))
    add("table-json", .tableJSON, 0, text(#"[{"a": 1, "b": "x", "c": 0.5}, {"a": 2, "c": -1e-3, "d": null}, {"b": "\u00e9\n", "a": 3}]"#))
    add("table-json-nested", .tableJSON, 0, text(#"[{"n": [1, 2], "o": {"k": true}, "s": "t"}]"#))
    let (images, labels) = idxPair(count: 3, rows: 2, columns: 3)
    add("idx-train", .datasetIDX, 0, pair(images, labels))
    add("idx-test", .datasetIDX, 1, pair(images, labels))
    add("idx-gzip", .datasetIDX, 2, pair(try gzip(images), try gzip(labels)))
    add("npy-f4", .arrayNPY, 0, npy("<f4", [2, 3], float32s([0, 1, 2, 3, 4, 5.5])))
    add("npy-f8", .arrayNPY, 1, npy("<f8", [2], littleEndian([Double(1.5).bitPattern, Double(-2).bitPattern])))
    add("npy-i8", .arrayNPY, 0, npy("<i8", [3], littleEndian([Int64(1), -2, 3])))
    add("npy-i4", .arrayNPY, 0, npy("<i4", [1, 2], littleEndian([Int32(7), -7])))
    add("npy-u1", .arrayNPY, 0, npy("|u1", [2, 2], [0, 1, 254, 255]))
    add("npy-i1", .arrayNPY, 0, npy("|i1", [2], [0x80, 0x7f]))
    add("npy-pair", .datasetNPYPair, 0, pair(npy("<f4", [2, 2], float32s([0.5, 1, 1.5, 2])), npy("<i8", [2], littleEndian([Int64(0), 1]))))
    add("npy-pair-f8-labels", .datasetNPYPair, 0, pair(npy("<f8", [1, 3], littleEndian([1.0, 2.0, 3.0].map(\.bitPattern))),
                                                       npy("<f8", [1], littleEndian([Double(2).bitPattern]))))
    add("array-json", .arrayJSON, 0, text("[[1, 2.5, -3e2], [4, 5, 6]]"))
    add("array-json-scalar", .arrayJSON, 0, text("0.125"))
    add("array-csv", .arrayCSV, 0, text("1,2.5,-3e-2,4\n"))
    return out
}

// MARK: Main

@main
enum MakeSeeds {
    static func main() throws {
        let arguments = CommandLine.arguments
        if arguments.count >= 2, arguments[1] == "--check" {
            // The status of model files made elsewhere (the converted ML Program fixtures).
            for path in arguments.dropFirst(2) {
                let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
                let status = (try? CoreML_Specification_Model(serializedModel: bytes)).map { Self.status($0) } ?? "DOES NOT DECODE"
                print("model \((path as NSString).lastPathComponent): \(bytes.count) bytes, \(status)")
            }
            return
        }
        guard arguments.count == 3 else {
            FileHandle.standardError.write(Data("usage: MakeSeeds MODEL_FOLDER DATA_FOLDER | MakeSeeds --check MODEL_FILE ...\n".utf8))
            exit(2)
        }
        let modelFolder = URL(fileURLWithPath: arguments[1]), dataFolder = URL(fileURLWithPath: arguments[2])
        for folder in [modelFolder, dataFolder] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        for (name, spec) in models() + programModels() {
            let bytes: Data = try spec.serializedData()
            try bytes.write(to: modelFolder.appendingPathComponent("gen-\(name).mlmodel"))
            print("model gen-\(name).mlmodel: \(bytes.count) bytes, \(status(spec))")
        }
        for (name, bytes) in try dataSeeds() {
            try Data(bytes).write(to: dataFolder.appendingPathComponent("gen-\(name).bin"))
            print("data gen-\(name).bin: \(bytes.count) bytes")
        }
    }

    /// Whether a seed validates and predicts (with the inputs FuzzModel would make).
    static func status(_ spec: Spec) -> String {
        let model: MLModel
        do {
            let configuration = MLModelConfiguration()
            configuration.memoryLimit = 256 << 20  // FuzzModel's budget
            model = try MLModel(specification: spec, configuration: configuration)
        } catch { return "INVALID: \(error)" }
        var values: [String: MLFeatureValue] = [:]
        for input in model.modelDescription.inputDescriptions {
            switch input.type {
            case .multiArray:
                var shape = input.multiArrayConstraint!.shape.map(\.intValue)
                if shape.isEmpty { shape = [1] }
                values[input.name] = MLFeatureValue(multiArray: try! MLMultiArray(shape: shape.map { NSNumber(value: $0) }, dataType: .float32))
            case .image:
                let c = input.imageConstraint!
                values[input.name] = MLFeatureValue(pixelBuffer: PixelBuffer(width: c.pixelsWide, height: c.pixelsHigh, pixelFormatType: c.pixelFormatType)!)
            case .int64: values[input.name] = MLFeatureValue(int64: 1)
            case .double: values[input.name] = MLFeatureValue(double: 0.5)
            default: break
            }
        }
        do {
            _ = try model.prediction(from: MLDictionaryFeatureProvider(featureValues: values))
            return "validates, predicts"
        } catch {
            return "validates, prediction fails: \(error)"
        }
    }
}
