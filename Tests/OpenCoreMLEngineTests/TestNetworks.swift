import CoreMLSpec
import _OpenCoreMLEngine
import _OpenCoreMLKernels
import _OpenCoreMLTestSupport

/// Builds small updatable networks for the engine tests, by hand (no DSL below OpenCoreMLTools).
struct TestNetwork {
    var model = CoreML_Specification_Model()
    var layers: [CoreML_Specification_NeuralNetworkLayer] = []
    var random: TestRandom

    init(seed: UInt64, input: String = "x", shape: [Int64]) {
        random = TestRandom(seed: seed)
        model.specificationVersion = 4
        model.isUpdatable = true
        model.description_p.input = [Self.array(input, shape)]
    }

    /// The network of the layers added so far, without a loss (for forward passes).
    func layersOnly() throws -> Network {
        var model = model
        model.neuralNetwork.layers = layers
        return try Network(model: model)
    }

    /// Output `output` of the layers added so far for `batch` seeded inputs `x`: the training
    /// forward pass's, then the inference forward pass's on every instruction set this machine runs
    /// (paths only inference takes: packed weights, Winograd), each with the level's name.
    func trainingAndInferenceOutputs(batch: Int, seed: UInt64, output: String = "y") throws -> (training: [Float], inference: [(isa: String, values: [Float])]) {
        let network = try layersOnly()
        network.reserve(batch: batch, training: true)
        let x = network.inputBlob(named: "x")!
        var random = TestRandom(seed: seed)
        for i in 0..<(batch * x.shape.count) { x.value.pointer[i] = random.float() }
        let y = network.blobs[output]!
        let count = batch * y.shape.count
        network.forward(batch: batch, training: true)
        let training = y.value.array(count)
        let start = ocm_isa()
        defer { _ = ocm_set_isa(start) }
        var inference: [(String, [Float])] = []
        for isa in [OCM_ISA_SCALAR, OCM_ISA_AVX2, OCM_ISA_AVX512, OCM_ISA_NEON, start] where ocm_set_isa(isa) {
            for i in 0..<count { y.value.pointer[i] = .nan }
            network.forward(batch: batch, training: false)
            inference.append((String(cString: ocm_isa_name()), y.value.array(count)))
        }
        return (training, inference)
    }

    static func array(_ name: String, _ shape: [Int64], _ type: CoreML_Specification_ArrayFeatureType.ArrayDataType = .float32) -> CoreML_Specification_FeatureDescription {
        var feature = CoreML_Specification_FeatureDescription()
        feature.name = name
        feature.type.multiArrayType.shape = shape
        feature.type.multiArrayType.dataType = type
        return feature
    }

    mutating func weights(_ count: Int, scale: Float = 0.5, updatable: Bool = true) -> CoreML_Specification_WeightParams {
        var weights = CoreML_Specification_WeightParams()
        weights.floatValue = random.floats(count, -scale, scale)
        weights.isUpdatable = updatable
        return weights
    }

    mutating func add(_ name: String, _ inputs: [String], _ outputs: [String], updatable: Bool = false,
                      _ configure: (inout CoreML_Specification_NeuralNetworkLayer) -> Void) {
        var layer = CoreML_Specification_NeuralNetworkLayer()
        layer.name = name
        layer.input = inputs
        layer.output = outputs
        layer.isUpdatable = updatable
        configure(&layer)
        layers.append(layer)
    }

    mutating func innerProduct(_ name: String, _ input: String, _ output: String, inputs: Int, outputs: Int, updatable: Bool = true) {
        var params = CoreML_Specification_InnerProductLayerParams()
        params.inputChannels = UInt64(inputs)
        params.outputChannels = UInt64(outputs)
        params.hasBias_p = true
        params.weights = weights(inputs * outputs, updatable: updatable)
        params.bias = weights(outputs, updatable: updatable)
        add(name, [input], [output], updatable: updatable) { $0.innerProduct = params }
    }

    mutating func convolution(
        _ name: String, _ input: String, _ output: String, inputChannels: Int, outputChannels: Int, kernel: [Int] = [3, 3],
        stride: [Int] = [1, 1], dilation: [Int] = [1, 1], groups: Int = 1, same: Bool = false, padding: [Int] = [0, 0, 0, 0],
        updatable: Bool = true
    ) {
        var params = CoreML_Specification_ConvolutionLayerParams()
        params.outputChannels = UInt64(outputChannels)
        params.kernelChannels = UInt64(inputChannels / groups)
        params.nGroups = UInt64(groups)
        params.kernelSize = kernel.map(UInt64.init)
        params.stride = stride.map(UInt64.init)
        params.dilationFactor = dilation.map(UInt64.init)
        if same {
            params.same = CoreML_Specification_SamePadding()
        } else {
            var valid = CoreML_Specification_ValidPadding()
            var top = CoreML_Specification_BorderAmounts.EdgeSizes(), left = CoreML_Specification_BorderAmounts.EdgeSizes()
            top.startEdgeSize = UInt64(padding[0]); top.endEdgeSize = UInt64(padding[1])
            left.startEdgeSize = UInt64(padding[2]); left.endEdgeSize = UInt64(padding[3])
            valid.paddingAmounts.borderAmounts = [top, left]
            params.valid = valid
        }
        params.hasBias_p = true
        params.weights = weights(outputChannels * inputChannels / groups * kernel[0] * kernel[1], updatable: updatable)
        params.bias = weights(outputChannels, updatable: updatable)
        add(name, [input], [output], updatable: updatable) { $0.convolution = params }
    }

    /// A deconvolution (weights `[C_in, C_out / groups, kH, kW]`); `padding` is valid padding's
    /// `[top, bottom, left, right]`, `topLeftHeavy` same padding's odd row at the start.
    mutating func deconvolution(
        _ name: String, _ input: String, _ output: String, inputChannels: Int, outputChannels: Int, kernel: [Int],
        stride: [Int] = [1, 1], dilation: [Int] = [1, 1], groups: Int = 1, same: Bool = false, topLeftHeavy: Bool = false,
        padding: [Int] = [0, 0, 0, 0], outputShape: [Int] = []
    ) {
        convolution(name, input, output, inputChannels: groups, outputChannels: outputChannels, kernel: kernel, stride: stride,
                    dilation: dilation, groups: groups, same: same, padding: padding)
        layers[layers.count - 1].convolution.isDeconvolution = true
        layers[layers.count - 1].convolution.kernelChannels = UInt64(inputChannels)
        if topLeftHeavy { layers[layers.count - 1].convolution.same.asymmetryMode = .topLeftHeavy }
        layers[layers.count - 1].convolution.outputShape = outputShape.map(UInt64.init)
        layers[layers.count - 1].convolution.weights = weights(inputChannels * outputChannels / groups * kernel[0] * kernel[1], updatable: true)
    }

    /// Sets the loss (MSE against `target`, or CCE on softmax output `input`) and a plain SGD optimizer.
    mutating func finish(output: String, outputShape: [Int64], loss: Loss, target: String = "target", targetShape: [Int64]? = nil) {
        var network = CoreML_Specification_NeuralNetwork()
        network.layers = layers
        var lossLayer = CoreML_Specification_LossLayer()
        lossLayer.name = "loss"
        let targetFeature: CoreML_Specification_FeatureDescription
        switch loss {
        case .meanSquaredError:
            lossLayer.meanSquaredErrorLossLayer.input = output
            lossLayer.meanSquaredErrorLossLayer.target = target
            targetFeature = Self.array(target, targetShape ?? outputShape)
        case .crossEntropy:
            lossLayer.categoricalCrossEntropyLossLayer.input = output
            lossLayer.categoricalCrossEntropyLossLayer.target = target
            targetFeature = Self.array(target, [1], .int32)
        }
        network.updateParams.lossLayers = [lossLayer]
        var sgd = CoreML_Specification_SGDOptimizer()
        sgd.learningRate.defaultValue = 0.01
        sgd.learningRate.range.maxValue = 1
        sgd.miniBatchSize.defaultValue = 4
        sgd.miniBatchSize.range.minValue = 1
        sgd.miniBatchSize.range.maxValue = 1024
        sgd.momentum.defaultValue = 0
        sgd.momentum.range.maxValue = 1
        network.updateParams.optimizer.sgdOptimizer = sgd
        network.updateParams.epochs.defaultValue = 1
        network.updateParams.epochs.range.minValue = 1
        network.updateParams.epochs.range.maxValue = 100
        model.neuralNetwork = network
        model.description_p.output = [Self.array(output, outputShape)]
        model.description_p.trainingInput = model.description_p.input + [targetFeature]
    }

    enum Loss { case meanSquaredError, crossEntropy }
}

// MARK: - Sequence and rank-N layers

extension TestNetwork {
    /// Adds another model input (call before `finish`, which copies the inputs into the training inputs).
    mutating func addInput(_ name: String, _ shape: [Int64]) {
        model.description_p.input.append(Self.array(name, shape))
    }

    /// Switches the network to Core ML's exact array mapping (call after `finish`).
    mutating func useExactMapping() {
        model.neuralNetwork.arrayInputShapeMapping = .exactArrayMapping
    }

    /// Adds a second (or further) mean-squared-error loss on `input` against a new training input
    /// `<input>_true` of `shape`, and declares `input` as a model output (call after `finish`).
    mutating func addMeanSquaredErrorLoss(on input: String, shape: [Int64]) {
        var update = model.neuralNetwork.updateParams
        var loss = CoreML_Specification_LossLayer()
        loss.name = "loss_\(input)"
        loss.meanSquaredErrorLossLayer.input = input
        loss.meanSquaredErrorLossLayer.target = "\(input)_true"
        update.lossLayers.append(loss)
        model.neuralNetwork.updateParams = update
        model.description_p.trainingInput.append(Self.array("\(input)_true", shape))
        model.description_p.output.append(Self.array(input, shape))
    }

    /// A one-input `batchedMatmul` `[…, rows] → […, columns]` with trainable weights and bias.
    mutating func batchedMatmul(_ name: String, _ input: String, _ output: String, rows: Int, columns: Int, bias: Bool = true, updatable: Bool = true) {
        var params = CoreML_Specification_BatchedMatMulLayerParams()
        params.weightMatrixFirstDimension = UInt64(rows)
        params.weightMatrixSecondDimension = UInt64(columns)
        params.weights = weights(rows * columns, updatable: updatable)
        params.hasBias_p = bias
        if bias { params.bias = weights(columns, updatable: updatable) }
        add(name, [input], [output], updatable: updatable) { $0.batchedMatmul = params }
    }

    /// A `uniDirectionalLSTM` with random weights (and biases, peepholes when asked).
    mutating func lstm(
        _ name: String, inputs: [String], outputs: [String], inputSize: Int, hiddenSize: Int,
        sequenceOutput: Bool = true, reverse: Bool = false, peepholes: Bool = false, biases: Bool = true,
        forgetBias: Bool = false, coupled: Bool = false, cellClip: Float = 0,
        activations: [CoreML_Specification_ActivationParams] = [], updatable: Bool = true
    ) {
        var params = CoreML_Specification_UniDirectionalLSTMLayerParams()
        params.inputVectorSize = UInt64(inputSize)
        params.outputVectorSize = UInt64(hiddenSize)
        params.activations = activations
        params.reverseInput = reverse
        var lstm = CoreML_Specification_LSTMParams()
        lstm.sequenceOutput = sequenceOutput
        lstm.hasBiasVectors_p = biases
        lstm.hasPeepholeVectors_p = peepholes
        lstm.forgetBias = forgetBias
        lstm.coupledInputAndForgetGate = coupled
        lstm.cellClipThreshold = cellClip
        params.params = lstm
        let (x, h) = (inputSize, hiddenSize)
        var w = CoreML_Specification_LSTMWeightParams()
        w.inputGateWeightMatrix = weights(h * x, updatable: updatable)
        w.forgetGateWeightMatrix = weights(h * x, updatable: updatable)
        w.blockInputWeightMatrix = weights(h * x, updatable: updatable)
        w.outputGateWeightMatrix = weights(h * x, updatable: updatable)
        w.inputGateRecursionMatrix = weights(h * h, updatable: updatable)
        w.forgetGateRecursionMatrix = weights(h * h, updatable: updatable)
        w.blockInputRecursionMatrix = weights(h * h, updatable: updatable)
        w.outputGateRecursionMatrix = weights(h * h, updatable: updatable)
        if biases {
            w.inputGateBiasVector = weights(h, updatable: updatable)
            w.forgetGateBiasVector = weights(h, updatable: updatable)
            w.blockInputBiasVector = weights(h, updatable: updatable)
            w.outputGateBiasVector = weights(h, updatable: updatable)
        }
        if peepholes {
            w.inputGatePeepholeVector = weights(h, updatable: updatable)
            w.forgetGatePeepholeVector = weights(h, updatable: updatable)
            w.outputGatePeepholeVector = weights(h, updatable: updatable)
        }
        params.weightParams = w
        add(name, inputs, outputs, updatable: updatable) { $0.uniDirectionalLstm = params }
    }
}
