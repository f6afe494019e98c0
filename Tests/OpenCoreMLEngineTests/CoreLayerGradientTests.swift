import CoreMLSpec
import _OpenCoreMLEngine
import Testing
import _OpenCoreMLTestSupport

/// Finite-difference checks of the layers LeNet-style networks use, and of both losses.
@Suite("Gradients: dense, convolution, pooling, activations, softmax, losses")
struct CoreLayerGradientTests {
    @Test func innerProductWithMeanSquaredError() throws {
        var net = TestNetwork(seed: 1, shape: [5])
        net.innerProduct("dense1", "x", "h", inputs: 5, outputs: 4)
        net.add("tanh", ["h"], ["a"]) { $0.activation.tanh = .init() }
        net.innerProduct("dense2", "a", "y", inputs: 4, outputs: 3)
        net.finish(output: "y", outputShape: [3], loss: .meanSquaredError)
        try GradientCheck.check(net.model)
    }

    @Test func softmaxWithCrossEntropyFused() throws {
        var net = TestNetwork(seed: 2, shape: [6])
        net.innerProduct("dense", "x", "logits", inputs: 6, outputs: 4)
        net.add("softmax", ["logits"], ["probabilities"]) { $0.softmax = .init() }
        net.finish(output: "probabilities", outputShape: [4], loss: .crossEntropy)
        try GradientCheck.check(net.model, batch: 5, classes: 4)
    }

    @Test func softmaxBackwardUnfusedWhenProbabilitiesAreShared() throws {
        // A second consumer of the probabilities forces the general softmax backward.
        var net = TestNetwork(seed: 3, shape: [6])
        net.innerProduct("dense", "x", "logits", inputs: 6, outputs: 4)
        net.add("softmax", ["logits"], ["probabilities"]) { $0.softmax = .init() }
        net.innerProduct("head", "probabilities", "extra", inputs: 4, outputs: 2)
        net.finish(output: "probabilities", outputShape: [4], loss: .crossEntropy)
        // Make the extra branch a second loss so its gradient flows back through the softmax too.
        var update = net.model.neuralNetwork.updateParams
        var second = CoreML_Specification_LossLayer()
        second.name = "loss2"
        second.meanSquaredErrorLossLayer.input = "extra"
        second.meanSquaredErrorLossLayer.target = "extra_true"
        update.lossLayers.append(second)
        net.model.neuralNetwork.updateParams = update
        net.model.description_p.trainingInput.append(TestNetwork.array("extra_true", [2]))
        net.model.description_p.output.append(TestNetwork.array("extra", [2]))
        try GradientCheck.check(net.model, batch: 4, classes: 4)
    }

    @Test(arguments: [
        (kernel: [3, 3], stride: [1, 1], dilation: [1, 1], groups: 1, same: false, padding: [0, 0, 0, 0]),
        (kernel: [2, 3], stride: [2, 1], dilation: [1, 1], groups: 1, same: false, padding: [1, 0, 0, 2]),
        (kernel: [3, 3], stride: [2, 2], dilation: [1, 1], groups: 2, same: true, padding: [0, 0, 0, 0]),
        (kernel: [2, 2], stride: [1, 1], dilation: [2, 2], groups: 1, same: false, padding: [0, 0, 0, 0]),
        (kernel: [1, 1], stride: [1, 1], dilation: [1, 1], groups: 1, same: false, padding: [0, 0, 0, 0]),
        // One kernel position covering the whole input: the batch runs as one GEMM.
        (kernel: [7, 6], stride: [7, 6], dilation: [1, 1], groups: 1, same: false, padding: [0, 0, 0, 0]),
    ])
    func convolution(kernel: [Int], stride: [Int], dilation: [Int], groups: Int, same: Bool, padding: [Int]) throws {
        var net = TestNetwork(seed: 4, shape: [4, 7, 6])
        // A trainable 1×1 convolution first, so the tested layer's input gradient is checked too.
        net.convolution("pre", "x", "a", inputChannels: 4, outputChannels: 4, kernel: [1, 1])
        net.convolution("conv", "a", "b", inputChannels: 4, outputChannels: 6, kernel: kernel, stride: stride,
                        dilation: dilation, groups: groups, same: same, padding: padding)
        net.add("flatten", ["b"], ["f"]) { $0.flatten.mode = .channelFirst }
        let network = try Network(model: { var m = net.model; m.neuralNetwork.layers = net.layers; return m }())
        let size = network.blobs["f"]!.shape.count
        net.innerProduct("dense", "f", "y", inputs: size, outputs: 3)
        net.finish(output: "y", outputShape: [3], loss: .meanSquaredError)
        try GradientCheck.check(net.model, batch: 3, samples: 10)
    }

    @Test(arguments: [
        (kernel: [3, 3], stride: [1, 1], dilation: [1, 1], groups: 1, same: false, topLeftHeavy: false, padding: [0, 0, 0, 0], outputShape: [Int]()),
        (kernel: [2, 3], stride: [2, 1], dilation: [1, 1], groups: 1, same: false, topLeftHeavy: false, padding: [1, 0, 0, 2], outputShape: []),
        (kernel: [3, 3], stride: [2, 2], dilation: [1, 1], groups: 2, same: true, topLeftHeavy: false, padding: [0, 0, 0, 0], outputShape: []),
        (kernel: [3, 2], stride: [2, 3], dilation: [1, 1], groups: 1, same: true, topLeftHeavy: true, padding: [0, 0, 0, 0], outputShape: []),
        (kernel: [2, 2], stride: [1, 1], dilation: [2, 2], groups: 1, same: false, topLeftHeavy: false, padding: [0, 0, 0, 0], outputShape: []),
        (kernel: [3, 3], stride: [2, 2], dilation: [1, 1], groups: 1, same: false, topLeftHeavy: false, padding: [0, 0, 0, 0], outputShape: [16, 14]),
    ])
    func deconvolution(kernel: [Int], stride: [Int], dilation: [Int], groups: Int, same: Bool, topLeftHeavy: Bool, padding: [Int], outputShape: [Int]) throws {
        var net = TestNetwork(seed: 6, shape: [4, 7, 6])
        // A trainable 1×1 convolution first, so the deconvolution's input gradient is checked too.
        net.convolution("pre", "x", "a", inputChannels: 4, outputChannels: 4, kernel: [1, 1])
        net.deconvolution("deconv", "a", "b", inputChannels: 4, outputChannels: 6, kernel: kernel, stride: stride, dilation: dilation,
                          groups: groups, same: same, topLeftHeavy: topLeftHeavy, padding: padding, outputShape: outputShape)
        net.add("flatten", ["b"], ["f"]) { $0.flatten.mode = .channelFirst }
        let network = try Network(model: { var m = net.model; m.neuralNetwork.layers = net.layers; return m }())
        let size = network.blobs["f"]!.shape.count
        net.innerProduct("dense", "f", "y", inputs: size, outputs: 3)
        net.finish(output: "y", outputShape: [3], loss: .meanSquaredError)
        try GradientCheck.check(net.model, batch: 2, samples: 10)
    }

    /// A whole-input kernel followed by a ReLU that fuses into it (an activity classifier's window
    /// convolution), over a sequence of 3 steps.
    @Test func wholeInputConvolutionWithFusedReLU() throws {
        var net = TestNetwork(seed: 9, shape: [3, 1, 1, 4, 5])
        net.add("permute", ["x"], ["p"]) { $0.permute.axis = [0, 3, 1, 2] }
        net.convolution("conv", "p", "c", inputChannels: 5, outputChannels: 6, kernel: [1, 4], stride: [1, 4])
        var relu = CoreML_Specification_ActivationParams()
        relu.reLu = CoreML_Specification_ActivationReLU()
        net.add("relu", ["c"], ["r"]) { $0.activation = relu }
        net.innerProduct("dense", "r", "y", inputs: 6, outputs: 2)
        net.finish(output: "y", outputShape: [3, 1, 2, 1, 1], loss: .meanSquaredError)
        try GradientCheck.check(net.model, batch: 3, samples: 10)
    }

    @Test(arguments: ["max", "average", "averageExcludingPadding", "l2", "globalMax", "globalAverage"])
    func pooling(kind: String) throws {
        var net = TestNetwork(seed: 5, shape: [2, 6, 5])
        net.convolution("pre", "x", "a", inputChannels: 2, outputChannels: 3, kernel: [1, 1])
        net.add("pool", ["a"], ["b"]) {
            var p = CoreML_Specification_PoolingLayerParams()
            p.type = kind.hasPrefix("average") || kind == "globalAverage" ? .average : kind == "l2" ? .l2 : .max
            p.globalPooling = kind.hasPrefix("global")
            p.kernelSize = [3, 2]
            p.stride = [2, 2]
            if kind == "averageExcludingPadding" {
                p.avgPoolExcludePadding = true
                p.same = .init()
            } else {
                p.valid = .init()
            }
            $0.pooling = p
        }
        net.add("flatten", ["b"], ["f"]) { $0.flatten.mode = .channelLast }
        let network = try Network(model: { var m = net.model; m.neuralNetwork.layers = net.layers; return m }())
        let size = network.blobs["f"]!.shape.count
        net.innerProduct("dense", "f", "y", inputs: size, outputs: 2)
        net.finish(output: "y", outputShape: [2], loss: .meanSquaredError)
        try GradientCheck.check(net.model, batch: 2, samples: 10)
    }

    @Test(arguments: ["linear", "relu", "leakyRelu", "thresholdedRelu", "prelu", "tanh", "scaledTanh", "sigmoid",
                      "sigmoidHard", "elu", "softsign", "softplus", "parametricSoftplus"])
    func activation(kind: String) throws {
        var net = TestNetwork(seed: 6, shape: [3, 2, 2])
        net.convolution("pre", "x", "a", inputChannels: 3, outputChannels: 3, kernel: [1, 1])
        var random = TestRandom(seed: 60)
        net.add("act", ["a"], ["b"], updatable: kind == "prelu" || kind == "parametricSoftplus") {
            var p = CoreML_Specification_ActivationParams()
            func perChannel(_ lo: Float, _ hi: Float) -> CoreML_Specification_WeightParams {
                var w = CoreML_Specification_WeightParams()
                w.floatValue = random.floats(3, lo, hi)
                w.isUpdatable = true
                return w
            }
            switch kind {
            case "linear": p.linear.alpha = 1.5; p.linear.beta = 0.2
            case "relu": p.reLu = .init()
            case "leakyRelu": p.leakyReLu.alpha = 0.1
            case "thresholdedRelu": p.thresholdedReLu.alpha = 0.3
            case "prelu": p.preLu.alpha = perChannel(0.05, 0.5)
            case "tanh": p.tanh = .init()
            case "scaledTanh": p.scaledTanh.alpha = 1.7; p.scaledTanh.beta = 0.6
            case "sigmoid": p.sigmoid = .init()
            case "sigmoidHard": p.sigmoidHard.alpha = 0.2; p.sigmoidHard.beta = 0.5
            case "elu": p.elu.alpha = 0.8
            case "softsign": p.softsign = .init()
            case "softplus": p.softplus = .init()
            default:
                p.parametricSoftplus.alpha = perChannel(0.5, 1.5)
                p.parametricSoftplus.beta = perChannel(0.5, 1.5)
            }
            $0.activation = p
        }
        net.add("flatten", ["b"], ["f"]) { $0.flatten.mode = .channelFirst }
        net.innerProduct("dense", "f", "y", inputs: 12, outputs: 2)
        net.finish(output: "y", outputShape: [2], loss: .meanSquaredError)
        // Piecewise-linear functions have kinks a 1e-2 step can straddle; a smaller step avoids them.
        let kinked: Set = ["relu", "leakyRelu", "thresholdedRelu", "prelu", "sigmoidHard"]
        try GradientCheck.check(net.model, batch: 3, samples: 12, step: kinked.contains(kind) ? 1e-3 : 1e-2)
    }

    /// Every ``Activation``'s `derivative` (the classic layers' above, and those no classic layer
    /// has: SiLU, GELU's three forms) against central differences of its `value`, at points at
    /// least 0.05 from every kink (0, the clamp's −0.5 and 0.7, the threshold 0.3, hard sigmoid's ±2.5).
    @Test func activationDerivativesMatchFiniteDifferences() {
        let activations: [Activation] = [
            .relu, .clamp(lower: -0.5, upper: 0.7), .leakyReLU(alpha: 0.1), .prelu, .linear(alpha: 1.5, beta: 0.2),
            .thresholdedReLU(alpha: 0.3, inclusive: false), .tanh, .scaledTanh(alpha: 1.7, beta: 0.6), .sigmoid,
            .sigmoidHard(alpha: 0.2, beta: 0.5), .elu(alpha: 0.8), .softsign, .softplus, .parametricSoftplus,
            .gelu(.exact), .gelu(.tanhApproximation), .gelu(.sigmoidApproximation), .silu,
        ]
        let (alpha, beta): (Float, Float) = (0.3, 1.2), h: Float = 1e-2
        for activation in activations {
            for k in 0...60 {
                let x = -3.05 + 0.1 * Float(k)
                let numeric = (Double(activation.value(x + h, alpha: alpha, beta: beta)) - Double(activation.value(x - h, alpha: alpha, beta: beta))) / Double(2 * h)
                let analytic = Double(activation.derivative(x, activation.value(x, alpha: alpha, beta: beta), alpha: alpha, beta: beta))
                #expect(abs(numeric - analytic) <= 2e-3 * max(1, abs(numeric)), "\(activation) at \(x): \(analytic), numerically \(numeric)")
            }
        }
    }
}
