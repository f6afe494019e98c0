import CoreMLSpec

/// Reorders the four axes (sequence, C, H, W): `axis` is a permutation of 0…3.
public struct Permute: Layer {
    public let name: String
    public let input: [String]
    public let output: [String]
    public let axis: [UInt]

    public init(name: String, input: [String], output: [String], axis: [UInt]) {
        self.name = name
        self.input = input
        self.output = output
        self.axis = axis
    }

    public func layerSpecification() throws -> CoreML_Specification_NeuralNetworkLayer {
        guard axis.sorted() == [0, 1, 2, 3] else {
            throw ModelToolsError(location, "axis must be a permutation of 0, 1, 2, 3, got \(axis)")
        }
        var layer = try baseSpecification(input: input, output: output)
        layer.permute.axis = axis.map { UInt64($0) }
        return layer
    }
}
