import CoreMLSpec

/// The order `Flatten` reads C×H×W in: channel-first (C, H, W) or channel-last (H, W, C).
public enum FlattenOrder: Sendable {
    case first, last
}

/// C×H×W → C·H·W. The default order is channel-last, as in SwiftCoreMLTools.
public struct Flatten: Layer {
    public let name: String
    public let input: [String]
    public let output: [String]
    public let mode: FlattenOrder

    public init(name: String, input: [String], output: [String], mode: FlattenOrder = .last) {
        self.name = name
        self.input = input
        self.output = output
        self.mode = mode
    }

    public func layerSpecification() throws -> CoreML_Specification_NeuralNetworkLayer {
        var layer = try baseSpecification(input: input, output: output)
        layer.flatten.mode = mode == .first ? .channelFirst : .channelLast
        return layer
    }
}
