import CoreMLSpec

/// Reorders the four axes (sequence, C, H, W): `axis` is a permutation of 0…3.
public struct Permute: Layer {
    /// The layer's name, unique in the network.
    public let name: String
    /// The blob the layer reads.
    public let input: [String]
    /// The blob the layer writes.
    public let output: [String]
    /// For each output axis, the input axis it comes from: a permutation of 0 (sequence), 1 (C),
    /// 2 (H) and 3 (W).
    public let axis: [UInt]

    /// A permute layer.
    public init(name: String, input: [String], output: [String], axis: [UInt]) {
        self.name = name
        self.input = input
        self.output = output
        self.axis = axis
    }

    /// The layer as the format stores it, with its `permute` axes set.
    ///
    /// - Throws: A ``ModelToolsError`` when `axis` is not a permutation of 0…3.
    public func layerSpecification() throws -> CoreML_Specification_NeuralNetworkLayer {
        guard axis.sorted() == [0, 1, 2, 3] else {
            throw ModelToolsError(location, "axis must be a permutation of 0, 1, 2, 3, got \(axis)")
        }
        var layer = try baseSpecification(input: input, output: output)
        layer.permute.axis = axis.map { UInt64($0) }
        return layer
    }
}
