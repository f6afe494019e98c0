import CoreMLSpec

/// Softmax over the channel axis: the probabilities a cross-entropy loss and a classifier read.
public struct Softmax: Layer {
    public let name: String
    public let input: [String]
    public let output: [String]

    public init(name: String, input: [String], output: [String]) {
        self.name = name
        self.input = input
        self.output = output
    }

    public func layerSpecification() throws -> CoreML_Specification_NeuralNetworkLayer {
        var layer = try baseSpecification(input: input, output: output)
        layer.softmax = CoreML_Specification_SoftmaxLayerParams()
        return layer
    }
}
