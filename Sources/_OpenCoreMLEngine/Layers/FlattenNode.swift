import CoreMLSpec

/// Flattens C×H×W into C·H·W×1×1 per sequence position, channel-first (a copy) or channel-last
/// (H, W, C order).
final class FlattenNode: IndexMapNode, @unchecked Sendable {
    let channelLast: Bool

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_FlattenLayerParams, inputs: [Blob], outputs: [Blob]) {
        channelLast = params.mode == .channelLast
        super.init(spec, inputs: inputs, outputs: outputs)
    }

    override func prepareForShapes() throws {
        let dims = input.shape.classic
        indexMap = channelLast && dims.plane > 1 ? Self.channelLastMap(from: dims, to: output.shape.classic) : nil
    }
}
