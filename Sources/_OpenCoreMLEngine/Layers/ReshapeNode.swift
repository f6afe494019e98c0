import CoreMLSpec

/// Core ML's classic `reshape`. A `targetShape` of 3 is `[C, H, W]` and keeps the sequence length
/// (each sequence position is reshaped); one of 4 is `[Seq, C, H, W]` and reshapes the whole
/// example. The number of values must not change.
///
/// `channelFirst` keeps the data order (a copy). `channelLast` reads the input in H, W, C order
/// (per sequence position, positions one after the other), cuts that stream into output
/// positions holding H_out·W_out·C_out values in H, W, C order, and stores them as C, H, W.
///
/// The engine reshapes each example on its own: Core ML's batch axis is kept apart, so a new
/// sequence length never mixes examples.
final class ReshapeNode: IndexMapNode, @unchecked Sendable {
    let channelLast: Bool

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_ReshapeLayerParams, inputs: [Blob], outputs: [Blob]) throws {
        channelLast = params.mode == .channelLast
        super.init(spec, inputs: inputs, outputs: outputs)
    }

    override func prepareForShapes() throws {
        indexMap = channelLast ? Self.channelLastMap(from: input.shape.classic, to: output.shape.classic) : nil
    }
}
