import CoreMLSpec

/// The order `Flatten` reads C×H×W in: channel-first (C, H, W) or channel-last (H, W, C).
public enum FlattenOrder: Sendable {
    /// `first`: channel by channel, each as rows of pixels; `last`: pixel by pixel, each with all its
    /// channels.
    case first, last
}

/// C×H×W → C·H·W. The default order is channel-last, as in SwiftCoreMLTools.
public struct Flatten: Layer {
    /// The layer's name, unique in the network.
    public let name: String
    /// The blob the layer reads, `C × H × W`.
    public let input: [String]
    /// The blob the layer writes, `C·H·W` values.
    public let output: [String]
    /// The order of the values (``FlattenOrder/last`` by default).
    public let mode: FlattenOrder

    /// A flatten layer.
    public init(name: String, input: [String], output: [String], mode: FlattenOrder = .last) {
        self.name = name
        self.input = input
        self.output = output
        self.mode = mode
    }

    /// The layer as the format stores it, with its `flatten` mode set.
    public func layerSpecification() throws -> CoreML_Specification_NeuralNetworkLayer {
        var layer = try baseSpecification(input: input, output: output)
        layer.flatten.mode = mode == .first ? .channelFirst : .channelLast
        return layer
    }
}
