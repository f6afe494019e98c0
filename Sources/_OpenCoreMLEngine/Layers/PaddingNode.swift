import CoreMLSpec

/// Core ML's classic `padding`: pads H and W of every channel plane by `paddingAmounts`
/// (`[top/bottom, left/right]` edge sizes), with a constant, the reflection of the border (the
/// edge value itself not repeated) or its replication: an adapter onto ``Padding``.
///
/// Backward crops the gradient for constant padding; for reflection and replication the
/// gradient of every padded position is added back into the input position it copied.
final class PaddingNode: LayerNode, @unchecked Sendable {
    let mode: Padding.Mode
    let top: Int, bottom: Int, left: Int, right: Int
    /// The padding of one example's planes (set by prepareForShapes()).
    private var padding: Padding?

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_PaddingLayerParams, inputs: [Blob], outputs: [Blob]) throws {
        switch params.paddingType {
        case .constant(let constant)?: mode = .constant(constant.value)
        case .reflection?: mode = .reflect
        case .replication?: mode = .replicate
        case nil: mode = .constant(0)
        }
        let amounts = params.paddingAmounts.borderAmounts
        let sizes = amounts.count == 2
            ? try [amounts[0].startEdgeSize, amounts[0].endEdgeSize, amounts[1].startEdgeSize, amounts[1].endEdgeSize].map { try Self.declaredSize($0, "paddingAmounts", of: spec) }
            : [0, 0, 0, 0]
        (top, bottom, left, right) = (sizes[0], sizes[1], sizes[2], sizes[3])
        super.init(spec, inputs: inputs, outputs: outputs)
    }

    override func prepareForShapes() throws {
        let dims = input.shape.classic
        do throws(PaddingError) {
            padding = try Padding(mode, inputShape: [dims.outer * dims.channels, dims.height, dims.width], before: [0, top, left], after: [0, bottom, right])
        } catch {
            throw fail("input '\(input.name)': \(error.message)")
        }
    }

    override func forward(batch: Int, training: Bool) {
        guard let padding else { return }
        let (inSize, outSize) = (padding.inputShape.reduce(1, *), padding.outputShape.reduce(1, *))
        for example in 0..<batch { padding.forward(input.value.pointer + example * inSize, into: output.value.pointer + example * outSize) }
    }

    override var hasBackward: Bool { true }

    override func backward(batch: Int) {
        guard input.needsGradient, let padding else { return }
        let (inSize, outSize) = (padding.inputShape.reduce(1, *), padding.outputShape.reduce(1, *))
        setGradient(of: input, count: batch * inSize) { dx in
            for example in 0..<batch { padding.backward(output.gradient.pointer + example * outSize, into: dx + example * inSize) }
        }
    }
}
