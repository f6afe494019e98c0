import _OpenCoreMLKernels

/// A classic ReLU or clip layer (ReLU6 in MobileNet and EfficientNet) that runs inside the
/// convolution before it (`Network.fuseConvolutionChains`, by ``ActivationProducer``'s rule): its
/// ``Activation`` forward on that layer's output in place, and backward from its own output, since
/// the input it would read is never written.
struct FusedActivation {
    /// The activation or clip layer; its output blob is the one the fusing layer fills.
    let node: LayerNode
    let activation: Activation

    init?(_ node: LayerNode) {
        switch node {
        case let layer as ActivationNode: activation = layer.activation
        case let clip as ClipNode: activation = clip.activation
        default: return nil
        }
        guard ActivationProducer.convolution.absorbs(activation) else { return nil }
        self.node = node
    }

    var output: Blob { node.output }

    /// nil for a ReLU (`max(x, 0)`, NaN to 0, which a max pooling after it may fuse with); a clip's
    /// bounds otherwise.
    var bounds: (lower: Float, upper: Float)? { activation == .relu ? nil : activation.clampBounds }

    /// The bounds a kernel that clamps its own output applies (a ReLU's are 0 and infinity).
    var clampBounds: (lower: Float, upper: Float) { Activation.bounds(activation) }

    /// What a GEMM applies to each finished block of its product (``Activation/epilogue(_:rowBias:)``).
    static func epilogue(_ activation: FusedActivation?, rowBias: UnsafePointer<Float>?) -> ocm_gemm_epilogue {
        Activation.epilogue(activation?.activation, rowBias: rowBias)
    }

    func forward(_ values: UnsafeMutablePointer<Float>, count: Int) {
        activation.apply(values, count: count)
    }

    /// The gradient before the activation from its `output` and output `gradient`
    /// (``Activation/fusedBackward(output:gradient:into:count:)``).
    func backward(output: UnsafePointer<Float>, gradient: UnsafePointer<Float>, into dx: UnsafeMutablePointer<Float>, count: Int) {
        activation.fusedBackward(output: output, gradient: gradient, into: dx, count: count)
    }
}
