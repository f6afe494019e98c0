import _OpenCoreMLKernels

/// The inference forward pass of a depthwise convolution (one input and one output channel per
/// group, as in MobileNet and EfficientNet): each channel plane is convolved with its own kernel
/// directly (a C kernel per instruction set), with the planes split over the thread pool once per layer. The general path (im2col
/// and one tiny GEMM per group, each dispatched to the pool) is several times slower for these.
struct DepthwiseConvolution {
    var channels: Int
    var input: (h: Int, w: Int)
    var output: (h: Int, w: Int)
    var kernel: (h: Int, w: Int)
    var stride: (h: Int, w: Int)
    var dilation: (h: Int, w: Int)
    var padTop: Int
    var padLeft: Int

    /// `planes` channel planes (images × channels) from `x` into `y`; `weights` holds one
    /// `kernel.h × kernel.w` kernel per channel, `bias` one value per channel (or nil); every output
    /// is then clamped to `bounds` (a fused ReLU or ReLU6). The C kernel (`ocm_depthwise_conv2d`,
    /// per instruction set) splits the planes over the thread pool.
    func forward(planes: Int, x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>?,
                 bounds: (lower: Float, upper: Float)) {
        ocm_depthwise_conv2d(x, y, weights, bias, Int32(planes), Int32(channels), Int32(input.h), Int32(input.w), Int32(output.h), Int32(output.w),
                             Int32(kernel.h), Int32(kernel.w), Int32(stride.h), Int32(stride.w), Int32(dilation.h), Int32(dilation.w),
                             Int32(padTop), Int32(padLeft), bounds.lower, bounds.upper)
    }
}
