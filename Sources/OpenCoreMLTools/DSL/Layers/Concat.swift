import CoreMLSpec

/// Joins its inputs along the channel axis (or the sequence axis with `sequenceConcat`).
public struct Concat: Layer {
    /// The layer's name, unique in the network.
    public let name: String
    /// The blobs to join, in order; at least two.
    public let input: [String]
    /// The blob the result is written to.
    public let output: [String]
    /// Whether to join along the sequence axis instead of the channel axis (false by default).
    public let sequenceConcat: Bool

    /// A concatenation layer.
    public init(name: String, input: [String], output: [String], sequenceConcat: Bool = false) {
        self.name = name
        self.input = input
        self.output = output
        self.sequenceConcat = sequenceConcat
    }

    /// The layer as the format stores it, with its `concat` parameters set.
    ///
    /// - Throws: A ``ModelToolsError`` when there are fewer than two inputs.
    public func layerSpecification() throws -> CoreML_Specification_NeuralNetworkLayer {
        guard input.count >= 2 else { throw ModelToolsError(location, "concat needs at least two inputs, got \(input.count)") }
        var layer = try baseSpecification(input: input, output: output)
        layer.concat.sequenceConcat = sequenceConcat
        return layer
    }
}
