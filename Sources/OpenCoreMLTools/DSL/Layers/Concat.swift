import CoreMLSpec

/// Joins its inputs along the channel axis (or the sequence axis with `sequenceConcat`).
public struct Concat: Layer {
    public let name: String
    public let input: [String]
    public let output: [String]
    public let sequenceConcat: Bool

    public init(name: String, input: [String], output: [String], sequenceConcat: Bool = false) {
        self.name = name
        self.input = input
        self.output = output
        self.sequenceConcat = sequenceConcat
    }

    public func layerSpecification() throws -> CoreML_Specification_NeuralNetworkLayer {
        guard input.count >= 2 else { throw ModelToolsError(location, "concat needs at least two inputs, got \(input.count)") }
        var layer = try baseSpecification(input: input, output: output)
        layer.concat.sequenceConcat = sequenceConcat
        return layer
    }
}
