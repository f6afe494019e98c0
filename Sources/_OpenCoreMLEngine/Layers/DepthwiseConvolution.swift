/// The inference forward pass of a depthwise convolution (one input and one output channel per
/// group, as in MobileNet and EfficientNet): each channel plane is convolved with its own kernel
/// directly, with the planes split over the thread pool once per layer. The general path (im2col
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
    /// `kernel.h × kernel.w` kernel per channel, `bias` one value per channel (or nil).
    func forward(planes: Int, x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>?) {
        parallelForEach(planes) { _, plane in
            let channel = plane % channels
            convolve(x + plane * input.h * input.w, y + plane * output.h * output.w,
                     weights + channel * kernel.h * kernel.w, bias?[channel] ?? 0)
        }
    }

    /// One plane: for each output row and kernel tap, a run of multiply-adds over the output
    /// columns whose input column lies inside the picture (contiguous when the stride is 1).
    private func convolve(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, _ w: UnsafePointer<Float>, _ bias: Float) {
        y.update(repeating: bias, count: output.h * output.w)
        for kx in 0..<kernel.w {
            // Output columns ox with 0 ≤ ox·stride − padLeft + kx·dilation < input.w.
            let offset = kx * dilation.w - padLeft
            let first = offset >= 0 ? 0 : (-offset + stride.w - 1) / stride.w
            let last = min(output.w, (input.w - 1 - offset) >= 0 ? (input.w - 1 - offset) / stride.w + 1 : 0)
            guard first < last else { continue }
            for oy in 0..<output.h {
                let row = y + oy * output.w
                for ky in 0..<kernel.h {
                    let iy = oy * stride.h - padTop + ky * dilation.h
                    guard iy >= 0, iy < input.h else { continue }
                    let weight = w[ky * kernel.w + kx]
                    let source = x + iy * input.w + offset
                    if stride.w == 1 {
                        for ox in first..<last { row[ox] += weight * source[ox] }
                    } else {
                        for ox in first..<last { row[ox] += weight * source[ox * stride.w] }
                    }
                }
            }
        }
    }
}
