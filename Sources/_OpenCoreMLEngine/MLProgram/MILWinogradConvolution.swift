import _OpenCoreMLKernels

/// A `conv` run by Winograd's F(2×2, 3×3) (`ocm_winograd3x3_conv`): a 3×3 kernel with stride 1,
/// dilation 1, one group, and enough channels both ways for the 16 smaller products to beat one
/// im2col product (2.25× fewer multiply-adds; the transforms cost a few passes over the data).
/// The weights are transformed and packed once, when the program is compiled.
///
/// Results differ from the im2col product's by rounding only (the transforms' coefficients are
/// exact in binary): within 1e-5 of each other for unit-sized values. One deliberate difference:
/// a NaN or infinity in the input reaches all four outputs of its 2×2 block (the transforms mix a
/// tile's 16 inputs, and 0 × NaN is NaN), where a direct convolution would spare the outputs whose
/// windows miss it.
struct MILWinogradConvolution: Sendable {
    /// The fewest input and output channels for which the transform pays (ResNet's 64 and up do;
    /// a stem's 3 input channels do not).
    static let minimumChannels = 16

    let inChannels: Int
    let outChannels: Int
    private let transformed: [Float]
    private let packed: MILPackedWeights

    /// Nil when the convolution is not one Winograd runs here.
    init?(weight: MILTensor, groups: Int, strides: [Int], dilations: [Int]) {
        guard weight.shape.count == 4, weight.shape[2] == 3, weight.shape[3] == 3, groups == 1, strides == [1, 1], dilations == [1, 1],
              weight.shape[0] >= Self.minimumChannels, weight.shape[1] >= Self.minimumChannels else { return nil }
        (outChannels, inChannels) = (weight.shape[0], weight.shape[1])
        var transformed = [Float](repeating: 0, count: 16 * outChannels * inChannels)
        ocm_winograd3x3_weights(weight.values, Int32(outChannels), Int32(inChannels), &transformed)
        self.transformed = transformed
        packed = MILPackedWeights(transformed, groups: 16, rows: outChannels, columns: inChannels)
    }

    /// The scratch floats ``convolve(_:into:images:height:width:padTop:padLeft:outH:outW:bias:clampedTo:scratch:)`` needs.
    func scratchFloats(outH: Int, outW: Int) -> Int {
        ocm_winograd3x3_scratch_floats(Int32(inChannels), Int32(outChannels), Int32(outH), Int32(outW))
    }

    /// Convolves `images` N×C×H×W images into `output` (N×outChannels×outH×outW), adding `bias`
    /// and clamping to `bounds`.
    func convolve(_ input: [Float], into output: inout [Float], images: Int, height: Int, width: Int, padTop: Int, padLeft: Int,
                  outH: Int, outW: Int, bias: [Float]?, clampedTo bounds: (lower: Float, upper: Float), scratch: inout [Float]) {
        let inPlane = inChannels * height * width, outPlane = outChannels * outH * outW
        input.withUnsafeBufferPointer { x in
            output.withUnsafeMutableBufferPointer { y in
                scratch.withUnsafeMutableBufferPointer { scratch in
                    MILOperations.withOptionalPointer(bias) { bias in
                        packed.withPacked { packedWeights in
                            for image in 0..<images {
                                ocm_winograd3x3_conv(transformed, packed.isa, packedWeights, x.baseAddress! + image * inPlane,
                                                     y.baseAddress! + image * outPlane, Int32(inChannels), Int32(outChannels),
                                                     Int32(height), Int32(width), Int32(padTop), Int32(padLeft), Int32(outH), Int32(outW),
                                                     bias, bounds.lower, bounds.upper, scratch.baseAddress!)
                            }
                        }
                    }
                }
            }
        }
    }
}
