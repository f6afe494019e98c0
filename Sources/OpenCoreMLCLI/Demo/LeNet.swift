import CoreMLSpec
import OpenCoreMLTools

/// The seeds' LeNet ("Fully Training a Core ML CNN On-Device"), declared with the OpenCoreMLTools DSL:
/// conv 32 3×3 → ReLU → max-pool 2 → conv 32 2×2 → ReLU → max-pool 2 → flatten → dense 500 → ReLU
/// → dense 10 → softmax; updatable, categorical cross-entropy, Adam lr 1e-4, batch 128, 10 epochs.
/// Weights are Glorot-uniform from a fixed seed, so the same model comes out every time.
enum LeNet {
    static func specification(seed: UInt64 = 1) -> CoreML_Specification_Model {
        var random = SplitMix64(seed: seed)
        let conv1 = glorotUniform(count: 32 * 1 * 9, fanIn: 1 * 9, fanOut: 32 * 9, random: &random)
        let conv2 = glorotUniform(count: 32 * 32 * 4, fanIn: 32 * 4, fanOut: 32 * 4, random: &random)
        let dense1 = glorotUniform(count: 1152 * 500, fanIn: 1152, fanOut: 500, random: &random)
        let dense2 = glorotUniform(count: 500 * 10, fanIn: 500, fanOut: 10, random: &random)
        let model = Model(version: 4,
                          shortDescription: "LeNet for 28×28 grayscale digits, trainable on device (Adam, cross-entropy).",
                          author: "OpenCoreML demo", license: "MIT", versionString: "1.0") {
            Input(name: "image", shape: [1, 28, 28])
            Output(name: "output", shape: [10])
            NeuralNetwork(losses: [CategoricalCrossEntropy(name: "lossLayer", input: "output", target: "output_true")],
                          optimizer: Adam(learningRateDefault: 1e-4, miniBatchSizeDefault: 128, miniBatchSizeRange: [16, 32, 64, 128, 256]),
                          epochDefault: 10, epochRange: 1...1000, shuffle: true, seed: 42) {
                Convolution(name: "conv1", input: ["image"], output: ["conv1_out"], weight: conv1,
                            outputChannels: 32, kernelChannels: 1, kernelSize: [3, 3], updatable: true)
                ReLu(name: "relu1", input: ["conv1_out"], output: ["relu1_out"])
                Pooling(name: "pool1", input: ["relu1_out"], output: ["pool1_out"], poolingType: .max, kernelSize: [2, 2], stride: [2, 2],
                        avgPoolExcludePadding: false)
                Convolution(name: "conv2", input: ["pool1_out"], output: ["conv2_out"], weight: conv2,
                            outputChannels: 32, kernelChannels: 32, kernelSize: [2, 2], updatable: true)
                ReLu(name: "relu2", input: ["conv2_out"], output: ["relu2_out"])
                Pooling(name: "pool2", input: ["relu2_out"], output: ["pool2_out"], poolingType: .max, kernelSize: [2, 2], stride: [2, 2],
                        avgPoolExcludePadding: false)
                Flatten(name: "flatten", input: ["pool2_out"], output: ["flatten_out"], mode: .first)
                InnerProduct(name: "dense1", input: ["flatten_out"], output: ["dense1_out"], weight: dense1,
                             inputChannels: 1152, outputChannels: 500, updatable: true)
                ReLu(name: "relu3", input: ["dense1_out"], output: ["relu3_out"])
                InnerProduct(name: "dense2", input: ["relu3_out"], output: ["dense2_out"], weight: dense2,
                             inputChannels: 500, outputChannels: 10, updatable: true)
                Softmax(name: "softmax", input: ["dense2_out"], output: ["output"])
            }
        }
        // The declaration is fixed and valid (the demo's tests check it), so this cannot fail.
        return try! model.makeSpecification()
    }

    private static func glorotUniform(count: Int, fanIn: Int, fanOut: Int, random: inout SplitMix64) -> [Float] {
        let limit = Float((6.0 / Double(fanIn + fanOut)).squareRoot())
        return (0..<count).map { _ in Float.random(in: -limit...limit, using: &random) }
    }
}

