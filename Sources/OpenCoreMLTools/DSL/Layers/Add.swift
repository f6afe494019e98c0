import CoreMLSpec

/// The element-wise sum of its inputs (with one input: `input + alpha`).
public struct Add: Layer {
    public let name: String
    public let input: [String]
    public let output: [String]
    public let alpha: Float

    public init(name: String, input: [String], output: [String], alpha: Float = 0) {
        self.name = name
        self.input = input
        self.output = output
        self.alpha = alpha
    }

    public func layerSpecification() throws -> CoreML_Specification_NeuralNetworkLayer {
        var layer = try baseSpecification(input: input, output: output)
        layer.add.alpha = alpha
        return layer
    }
}
