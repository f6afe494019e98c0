import CoreMLSpec
import OpenCoreMLEngine

/// The seeds' LeNet ("Fully Training a Core ML CNN On-Device"), built directly as a specification:
/// conv 32 3×3 → ReLU → max-pool 2 → conv 32 2×2 → ReLU → max-pool 2 → flatten → dense 500 → ReLU
/// → dense 10 → softmax; updatable, categorical cross-entropy, Adam lr 1e-4, batch 128, 10 epochs.
/// Weights are Glorot-uniform from a fixed seed, so the same model comes out every time.
enum LeNet {
    static func specification(seed: UInt64 = 1) -> CoreML_Specification_Model {
        var random = SeededGenerator(seed: seed)
        var network = CoreML_Specification_NeuralNetwork()
        network.layers = [
            convolution("conv1", "image", "conv1_out", inputChannels: 1, outputChannels: 32, kernel: 3, random: &random),
            relu("relu1", "conv1_out", "relu1_out"),
            maxPool("pool1", "relu1_out", "pool1_out"),
            convolution("conv2", "pool1_out", "conv2_out", inputChannels: 32, outputChannels: 32, kernel: 2, random: &random),
            relu("relu2", "conv2_out", "relu2_out"),
            maxPool("pool2", "relu2_out", "pool2_out"),
            flatten("flatten", "pool2_out", "flatten_out"),
            innerProduct("dense1", "flatten_out", "dense1_out", inputs: 1152, outputs: 500, random: &random),
            relu("relu3", "dense1_out", "relu3_out"),
            innerProduct("dense2", "relu3_out", "dense2_out", inputs: 500, outputs: 10, random: &random),
            softmax("softmax", "dense2_out", "output"),
        ]
        network.updateParams = updateParameters()

        var model = CoreML_Specification_Model()
        model.specificationVersion = 4
        model.isUpdatable = true
        model.description_p.input = [array("image", [1, 28, 28])]
        model.description_p.output = [array("output", [10])]
        var label = array("output_true", [1])
        label.type.multiArrayType.dataType = .int32
        model.description_p.trainingInput = [array("image", [1, 28, 28]), label]
        model.description_p.metadata.shortDescription = "LeNet for 28×28 grayscale digits, trainable on device (Adam, cross-entropy)."
        model.description_p.metadata.author = "OpenCoreML demo"
        model.description_p.metadata.license = "MIT"
        model.description_p.metadata.versionString = "1.0"
        model.neuralNetwork = network
        return model
    }

    private static func array(_ name: String, _ shape: [Int64]) -> CoreML_Specification_FeatureDescription {
        var feature = CoreML_Specification_FeatureDescription()
        feature.name = name
        feature.type.multiArrayType.shape = shape
        feature.type.multiArrayType.dataType = .float32
        return feature
    }

    private static func layer(_ name: String, _ input: String, _ output: String) -> CoreML_Specification_NeuralNetworkLayer {
        var layer = CoreML_Specification_NeuralNetworkLayer()
        layer.name = name
        layer.input = [input]
        layer.output = [output]
        return layer
    }

    private static func weights(count: Int, fanIn: Int, fanOut: Int, random: inout SeededGenerator) -> CoreML_Specification_WeightParams {
        let limit = Float((6.0 / Double(fanIn + fanOut)).squareRoot())
        var weights = CoreML_Specification_WeightParams()
        weights.floatValue = (0..<count).map { _ in Float.random(in: -limit...limit, using: &random) }
        weights.isUpdatable = true
        return weights
    }

    private static func zeros(_ count: Int) -> CoreML_Specification_WeightParams {
        var bias = CoreML_Specification_WeightParams()
        bias.floatValue = [Float](repeating: 0, count: count)
        bias.isUpdatable = true
        return bias
    }

    private static func convolution(
        _ name: String, _ input: String, _ output: String, inputChannels: Int, outputChannels: Int, kernel: Int,
        random: inout SeededGenerator
    ) -> CoreML_Specification_NeuralNetworkLayer {
        var params = CoreML_Specification_ConvolutionLayerParams()
        params.outputChannels = UInt64(outputChannels)
        params.kernelChannels = UInt64(inputChannels)
        params.nGroups = 1
        params.kernelSize = [UInt64(kernel), UInt64(kernel)]
        params.stride = [1, 1]
        params.dilationFactor = [1, 1]
        params.valid = CoreML_Specification_ValidPadding()
        params.hasBias_p = true
        let area = kernel * kernel
        params.weights = weights(
            count: outputChannels * inputChannels * area, fanIn: inputChannels * area, fanOut: outputChannels * area, random: &random)
        params.bias = zeros(outputChannels)
        var layer = layer(name, input, output)
        layer.convolution = params
        layer.isUpdatable = true
        return layer
    }

    private static func innerProduct(
        _ name: String, _ input: String, _ output: String, inputs: Int, outputs: Int, random: inout SeededGenerator
    ) -> CoreML_Specification_NeuralNetworkLayer {
        var params = CoreML_Specification_InnerProductLayerParams()
        params.inputChannels = UInt64(inputs)
        params.outputChannels = UInt64(outputs)
        params.hasBias_p = true
        params.weights = weights(count: inputs * outputs, fanIn: inputs, fanOut: outputs, random: &random)
        params.bias = zeros(outputs)
        var layer = layer(name, input, output)
        layer.innerProduct = params
        layer.isUpdatable = true
        return layer
    }

    private static func relu(_ name: String, _ input: String, _ output: String) -> CoreML_Specification_NeuralNetworkLayer {
        var layer = layer(name, input, output)
        layer.activation.reLu = CoreML_Specification_ActivationReLU()
        return layer
    }

    private static func maxPool(_ name: String, _ input: String, _ output: String) -> CoreML_Specification_NeuralNetworkLayer {
        var params = CoreML_Specification_PoolingLayerParams()
        params.type = .max
        params.kernelSize = [2, 2]
        params.stride = [2, 2]
        params.valid = CoreML_Specification_ValidPadding()
        var layer = layer(name, input, output)
        layer.pooling = params
        return layer
    }

    private static func flatten(_ name: String, _ input: String, _ output: String) -> CoreML_Specification_NeuralNetworkLayer {
        var layer = layer(name, input, output)
        layer.flatten.mode = .channelFirst
        return layer
    }

    private static func softmax(_ name: String, _ input: String, _ output: String) -> CoreML_Specification_NeuralNetworkLayer {
        var layer = layer(name, input, output)
        layer.softmax = CoreML_Specification_SoftmaxLayerParams()
        return layer
    }

    private static func updateParameters() -> CoreML_Specification_NetworkUpdateParameters {
        var update = CoreML_Specification_NetworkUpdateParameters()
        var loss = CoreML_Specification_LossLayer()
        loss.name = "lossLayer"
        loss.categoricalCrossEntropyLossLayer.input = "output"
        loss.categoricalCrossEntropyLossLayer.target = "output_true"
        update.lossLayers = [loss]
        var adam = CoreML_Specification_AdamOptimizer()
        adam.learningRate.defaultValue = 1e-4
        adam.learningRate.range.minValue = 0
        adam.learningRate.range.maxValue = 1
        adam.miniBatchSize.defaultValue = 128
        adam.miniBatchSize.set.values = [16, 32, 64, 128, 256]
        adam.beta1.defaultValue = 0.9
        adam.beta1.range.maxValue = 1
        adam.beta2.defaultValue = 0.999
        adam.beta2.range.maxValue = 1
        adam.eps.defaultValue = 1e-8
        adam.eps.range.maxValue = 1
        update.optimizer.adamOptimizer = adam
        update.epochs.defaultValue = 10
        update.epochs.range.minValue = 1
        update.epochs.range.maxValue = 1000
        update.shuffle.defaultValue = true
        update.seed.defaultValue = 42
        return update
    }
}

/// The seeded generator demo data and weights are drawn from.
typealias SeededGenerator = SplitMix64
