import CoreMLSpec

/// The element-wise sum of its inputs (with one input: `input + alpha`).
public struct Add: Layer {
    /// The layer's name, unique in the network.
    public let name: String
    /// The blobs to add, of the same shape.
    public let input: [String]
    /// The blob the sum is written to.
    public let output: [String]
    /// The constant added when there is a single input (0 by default).
    public let alpha: Float

    /// An addition layer.
    public init(name: String, input: [String], output: [String], alpha: Float = 0) {
        self.name = name
        self.input = input
        self.output = output
        self.alpha = alpha
    }

    /// The layer as the format stores it, with its `add` parameters set.
    public func layerSpecification() throws -> CoreML_Specification_NeuralNetworkLayer {
        var layer = try baseSpecification(input: input, output: output)
        layer.add.alpha = alpha
        return layer
    }
}
