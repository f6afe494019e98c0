import CoreMLSpec
import _OpenCoreMLKernels

/// Core ML's `clip`: `y = min(max(x, minVal), maxVal)`. The gradient passes where
/// `minVal ≤ x ≤ maxVal` and is zero outside.
final class ClipNode: LayerNode, @unchecked Sendable {
    let lower: Float, upper: Float

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_ClipLayerParams, inputs: [Blob], outputs: [Blob]) {
        lower = params.minVal
        upper = params.maxVal
        super.init(spec, inputs: inputs, outputs: outputs)
    }

    override func forward(batch: Int, training: Bool) {
        let n = batch * input.shape.count
        ocm_clamp(input.value.pointer, output.value.pointer, n, lower, upper)
    }

    override func backward(batch: Int) {
        guard input.needsGradient else { return }
        let n = batch * input.shape.count
        let x = input.value.pointer, dy = output.gradient.pointer
        setGradient(of: input, count: n) { dx in
            for i in 0..<n { dx[i] = x[i] >= lower && x[i] <= upper ? dy[i] : 0 }
        }
    }
}
