import _OpenCoreMLKernels

/// A convolution run by Winograd's F(2×2, 3×3) (`ocm_winograd3x3_conv`) at inference: a 3×3
/// kernel with stride 1, dilation 1, one group, and enough channels both ways for the 16 smaller
/// products to beat one im2col product (2.25× fewer multiply-adds; the transforms cost a few passes
/// over the data). The weights are transformed and packed once. ML Programs' `conv` and neural
/// networks' convolution layers with weights that never train use it.
///
/// Results differ from the im2col product's by rounding only (the transforms' coefficients are
/// exact in binary): within 1e-5 of each other for unit-sized values. One deliberate difference:
/// a NaN or infinity in the input reaches all four outputs of its 2×2 block (the transforms mix a
/// tile's 16 inputs, and 0 × NaN is NaN), where a direct convolution would spare the outputs whose
/// windows miss it.
struct WinogradConvolution: Sendable {
    /// The fewest input and output channels for which the transform pays (ResNet's 64 and up do;
    /// a stem's 3 input channels do not).
    static let minimumChannels = 16

    let inChannels: Int
    let outChannels: Int
    private let transformed: [Float]
    private let packed: PackedWeights

    /// Whether a convolution of this geometry runs by Winograd here.
    static func applies(kernel: (Int, Int), groups: Int, stride: (Int, Int), dilation: (Int, Int), inChannels: Int, outChannels: Int) -> Bool {
        kernel == (3, 3) && groups == 1 && stride == (1, 1) && dilation == (1, 1)
            && inChannels >= minimumChannels && outChannels >= minimumChannels
    }

    /// Transforms `weights` (outChannels × inChannels × 3 × 3) and packs them.
    init(weights: UnsafePointer<Float>, outChannels: Int, inChannels: Int) {
        (self.outChannels, self.inChannels) = (outChannels, inChannels)
        var transformed = [Float](repeating: 0, count: 16 * outChannels * inChannels)
        ocm_winograd3x3_weights(weights, Int32(outChannels), Int32(inChannels), &transformed)
        self.transformed = transformed
        packed = PackedWeights(transformed, groups: 16, rows: outChannels, columns: inChannels)
    }

    /// The scratch floats one image's ``convolve(_:into:height:width:padTop:padLeft:outH:outW:bias:clampedTo:scratch:)`` needs.
    func scratchFloats(outH: Int, outW: Int) -> Int {
        ocm_winograd3x3_scratch_floats(Int32(inChannels), Int32(outChannels), Int32(outH), Int32(outW))
    }

    /// Convolves one inChannels×H×W image into `output` (outChannels×outH×outW), adding `bias`
    /// (or none) and clamping to `bounds`.
    func convolve(_ image: UnsafePointer<Float>, into output: UnsafeMutablePointer<Float>, height: Int, width: Int, padTop: Int, padLeft: Int,
                  outH: Int, outW: Int, bias: UnsafePointer<Float>?, clampedTo bounds: (lower: Float, upper: Float),
                  scratch: UnsafeMutablePointer<Float>) {
        packed.withPacked { packedWeights in
            ocm_winograd3x3_conv(transformed, packed.isa, packedWeights, image, output, Int32(inChannels), Int32(outChannels),
                                 Int32(height), Int32(width), Int32(padTop), Int32(padLeft), Int32(outH), Int32(outW),
                                 bias, bounds.lower, bounds.upper, scratch)
        }
    }
}
