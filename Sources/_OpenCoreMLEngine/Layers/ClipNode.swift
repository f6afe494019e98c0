import CoreMLSpec

/// Core ML's `clip`: `y = min(max(x, minVal), maxVal)`, the ``Activation/clamp(lower:upper:)``.
/// The gradient passes where `minVal ≤ x ≤ maxVal` and is zero outside.
final class ClipNode: LayerNode, @unchecked Sendable {
    let activation: Activation

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_ClipLayerParams, inputs: [Blob], outputs: [Blob]) {
        activation = .clamp(lower: params.minVal, upper: params.maxVal)
        super.init(spec, inputs: inputs, outputs: outputs)
    }

    override func forward(batch: Int, training: Bool) {
        activation.forward(input.value.pointer, output.value.pointer, count: batch * input.shape.count)
    }

    override var hasBackward: Bool { true }

    override func backward(batch: Int) {
        guard input.needsGradient else { return }
        let n = batch * input.shape.count
        let x = input.value.pointer, y = output.value.pointer, dy = output.gradient.pointer
        setGradient(of: input, count: n) { dx in
            activation.backward(x: x, y: y, dy: dy, into: dx, count: n)
        }
    }
}
