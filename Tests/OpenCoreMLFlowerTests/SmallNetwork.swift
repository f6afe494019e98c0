import CoreMLSpec
import Foundation
import OpenCoreML
import OpenCoreMLTools

/// A small updatable classifier for 28×28 digits: flatten → dense 784→24 → batch norm → ReLU →
/// dense 24→10 → softmax, Adam 1e-3, batch 32. Three updatable layers with biases and a batch
/// norm, so every kind of exchanged array is there; small enough to federate in seconds.
enum SmallNetwork {
    static func specification(seed: UInt64 = 3) throws -> CoreML_Specification_Model {
        var random = SplitMix64(seed: seed)
        func glorot(_ fanIn: Int, _ fanOut: Int) -> [Float] {
            let limit = Float((6.0 / Double(fanIn + fanOut)).squareRoot())
            return (0..<(fanIn * fanOut)).map { _ in Float.random(in: -limit...limit, using: &random) }
        }
        let model = Model(version: 4, shortDescription: "A small federated test network", author: "OpenCoreML tests", license: "MIT", versionString: "1.0") {
            Input(name: "image", shape: [1, 28, 28])
            Output(name: "output", shape: [10])
            NeuralNetwork(losses: [CategoricalCrossEntropy(name: "loss", input: "output", target: "output_true")],
                          optimizer: Adam(learningRateDefault: 1e-3, miniBatchSizeDefault: 32, miniBatchSizeRange: [16, 32, 64]),
                          epochDefault: 1, epochRange: 1...100, shuffle: true, seed: 7) {
                Flatten(name: "flatten", input: ["image"], output: ["flat"], mode: .first)
                InnerProduct(name: "dense1", input: ["flat"], output: ["hidden"], weight: glorot(784, 24), inputChannels: 784, outputChannels: 24, updatable: true)
                BatchNorm(name: "norm", input: ["hidden"], output: ["normalized"], channels: 24, mean: [Float](repeating: 0, count: 24),
                          variance: [Float](repeating: 1, count: 24), updatable: true)
                ReLu(name: "relu", input: ["normalized"], output: ["active"])
                InnerProduct(name: "dense2", input: ["active"], output: ["logits"], weight: glorot(24, 10), inputChannels: 24, outputChannels: 10, updatable: true)
                Softmax(name: "softmax", input: ["logits"], output: ["output"])
            }
        }
        return try model.makeSpecification()
    }

    static func model() throws -> MLModel { try MLModel(specification: specification()) }
}
