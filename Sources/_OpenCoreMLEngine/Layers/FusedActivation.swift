import _OpenCoreMLKernels

/// A ReLU or a clip (ReLU6 in MobileNet and EfficientNet) that runs inside the layer before it
/// (`Network.fuseConvolutionChains`): forward on that layer's output in place, and backward from
/// its own output, since the input it would read is never written.
struct FusedActivation {
    /// The ReLU or clip layer; its output blob is the one the fusing layer fills.
    let node: LayerNode
    /// nil for a ReLU (`max(x, 0)`, NaN to 0 as the ReLU layer does); a clip's bounds otherwise.
    let bounds: (lower: Float, upper: Float)?

    init?(_ node: LayerNode) {
        if let relu = node as? ActivationNode, relu.isPlainReLU {
            bounds = nil
        } else if let clip = node as? ClipNode {
            bounds = (clip.lower, clip.upper)
        } else {
            return nil
        }
        self.node = node
    }

    var output: Blob { node.output }

    /// The bounds a kernel that clamps its own output applies (a ReLU's are 0 and infinity).
    var clampBounds: (lower: Float, upper: Float) { bounds ?? (0, .infinity) }

    /// What a GEMM applies to each finished block of its product: `rowBias` (one value per row, or
    /// none) and then `activation` (or none).
    static func epilogue(_ activation: FusedActivation?, rowBias: UnsafePointer<Float>?) -> ocm_gemm_epilogue {
        guard let activation else { return ocm_gemm_epilogue(row_bias: rowBias, activation: OCM_EPILOGUE_NONE, lo: 0, hi: 0, col_bias: nil) }
        guard let bounds = activation.bounds else { return ocm_gemm_epilogue(row_bias: rowBias, activation: OCM_EPILOGUE_RELU, lo: 0, hi: 0, col_bias: nil) }
        return ocm_gemm_epilogue(row_bias: rowBias, activation: OCM_EPILOGUE_CLAMP, lo: bounds.lower, hi: bounds.upper, col_bias: nil)
    }

    func forward(_ values: UnsafeMutablePointer<Float>, count: Int) {
        if let bounds {
            ocm_clamp(values, values, count, bounds.lower, bounds.upper)
        } else {
            ocm_relu(values, values, count)
        }
    }

    /// The gradient before the activation from its `output` and output `gradient`. A clip passes
    /// it where the output lies strictly inside the bounds (the clip layer itself tests its input
    /// inclusively; the two differ only for inputs exactly on a bound).
    func backward(output: UnsafePointer<Float>, gradient: UnsafePointer<Float>, into dx: UnsafeMutablePointer<Float>, count: Int) {
        if let bounds {
            ocm_clamp_backward(output, gradient, dx, count, bounds.lower, bounds.upper)
        } else {
            ocm_relu_backward(output, gradient, dx, count)
        }
    }
}
