import CoreMLSpec

/// Softmax over the channel axis: the probabilities a cross-entropy loss and a classifier read.
public struct Softmax: Layer {
    /// The layer's name, unique in the network.
    public let name: String
    /// The blob of scores the layer reads.
    public let input: [String]
    /// The blob of probabilities the layer writes.
    public let output: [String]

    /// A softmax layer.
    public init(name: String, input: [String], output: [String]) {
        self.name = name
        self.input = input
        self.output = output
    }

    /// The layer as the format stores it, with its `softmax` parameters set.
    public func layerSpecification() throws -> CoreML_Specification_NeuralNetworkLayer {
        var layer = try baseSpecification(input: input, output: output)
        layer.softmax = CoreML_Specification_SoftmaxLayerParams()
        return layer
    }
}
