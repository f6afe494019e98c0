import CoreMLSpec
import _OpenCoreMLKernels

/// A dense layer `y = W·x + b` over rows of `inputChannels` values: Core ML's ranks 1–3 multiply
/// along the last axis, ranks 4 and 5 take C·H·W as one row (the layer table has checked which), so
/// an example holds `count / inputChannels` rows either way.
final class InnerProductNode: LayerNode, @unchecked Sendable {
    let inputChannels: Int
    let outputChannels: Int
    let weights: Parameter
    let bias: Parameter?

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_InnerProductLayerParams, inputs: [Blob], outputs: [Blob]) throws {
        inputChannels = try Self.declaredSize(params.inputChannels, "inputChannels", of: spec)
        outputChannels = try Self.declaredSize(params.outputChannels, "outputChannels", of: spec)
        weights = try Parameter.required("weights", of: spec)
        bias = try Parameter.optional("bias", of: spec)
        super.init(spec, inputs: inputs, outputs: outputs)
        parameters = [weights] + (bias.map { [$0] } ?? [])
    }

    /// The rows of `inputChannels` values in one example.
    var rowsPerExample: Int { input.shape.count / max(inputChannels, 1) }

    override var multiplyAddsPerExample: Int { rowsPerExample * inputChannels * outputChannels }

    override func forward(batch: Int, training: Bool) {
        let rows = Int32(batch * rowsPerExample)
        let n = Int32(outputChannels), k = Int32(inputChannels)
        ocm_sgemm(false, true, rows, n, k, 1, input.value.pointer, k, weights.value.pointer, k, 0, output.value.pointer, n)
        if let bias { ocm_add_row_vector(output.value.pointer, bias.value.pointer, rows, n, n) }
    }

    override var hasBackward: Bool { true }

    override func backward(batch: Int) {
        let rows = Int32(batch * rowsPerExample)
        let n = Int32(outputChannels), k = Int32(inputChannels)
        let dy = output.gradient.pointer
        if weights.isTrainable {
            // dW (n×k) = dYᵀ (n×rows) · X (rows×k)
            ocm_sgemm(true, false, n, k, rows, 1, dy, n, input.value.pointer, k, 0, weights.gradient.pointer, k)
        }
        if let bias, bias.isTrainable { ocm_sum_rows(dy, bias.gradient.pointer, rows, n, n, false) }
        if input.needsGradient {
            input.writeGradient { dx, accumulate in
                // dX (rows×k) = dY (rows×n) · W (n×k)
                ocm_sgemm(false, false, rows, k, n, 1, dy, n, weights.value.pointer, k, accumulate ? 1 : 0, dx, k)
            }
        }
    }

    override func store(in spec: inout CoreML_Specification_NeuralNetworkLayer) {
        guard case .innerProduct(var params)? = spec.layer else { return }
        weights.store(in: &params.weights)
        bias?.store(in: &params.bias)
        spec.innerProduct = params
    }
}
