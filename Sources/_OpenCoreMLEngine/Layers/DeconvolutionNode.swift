import CoreMLSpec
import _OpenCoreMLKernels

/// A classic deconvolution (`convolution` with `isDeconvolution`, a transposed convolution) with
/// groups, stride, dilation, valid/same padding and `outputShape`, forward and backward.
///
/// The weights are `[C_in, C_out/groups, kH, kW]`. Per image and group, with X_g the group's input
/// (`C_in/g × H·W`) and W_g its weights as a `C_in/g × (C_out/g·kH·kW)` matrix:
/// - forward: columns = W_gᵀ·X_g, which `ocm_col2im` adds into the output (zeroed, then the bias);
/// - backward: the output gradient unfolded by `ocm_im2col` (the adjoint of `ocm_col2im`) into
///   columns dC, then dX_g = W_g·dC and dW_g += X_g·dCᵀ; the bias gradient sums each channel.
final class DeconvolutionNode: LayerNode, @unchecked Sendable {
    let inputChannels: Int
    let outputChannels: Int
    let groups: Int
    let kernel: (h: Int, w: Int)
    let stride: (h: Int, w: Int)
    let dilation: (h: Int, w: Int)
    let weights: Parameter
    let bias: Parameter?
    private let geometryParams: CoreML_Specification_ConvolutionLayerParams

    /// The window on the current input (set by prepareForShapes()).
    private var window = TransposedWindow2D(outputHeight: 0, outputWidth: 0, padTop: 0, padLeft: 0)
    private var inputSize = (h: 0, w: 0)
    /// Per-image scratch: one group's columns.
    private let columns = FloatBuffer()

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_ConvolutionLayerParams, inputs: [Blob], outputs: [Blob]) throws {
        let location = "layer '\(spec.name)' (deconvolution)"
        guard inputs.count == 1 else { throw EngineError(location, "weights given as a second input are not supported") }
        let sizes = try params.windowSizes(at: location)
        inputChannels = try Self.declaredSize(params.kernelChannels, "kernelChannels", of: spec)
        outputChannels = try Self.declaredSize(params.outputChannels, "outputChannels", of: spec)
        groups = max(1, try Self.declaredSize(params.nGroups, "nGroups", of: spec))
        (kernel, stride, dilation) = ((sizes.kernel.0, sizes.kernel.1), (sizes.stride.0, sizes.stride.1), (sizes.dilation.0, sizes.dilation.1))
        var geometryParams = params
        geometryParams.weights = .init()
        geometryParams.bias = .init()
        self.geometryParams = geometryParams
        weights = try Parameter.required("weights", of: spec)
        bias = try Parameter.optional("bias", of: spec)
        super.init(spec, inputs: inputs, outputs: outputs)
        parameters = [weights] + (bias.map { [$0] } ?? [])
    }

    override func prepareForShapes() throws {
        let classic = input.shape.classic
        // The layer table has checked the channels and that the padding leaves an output.
        do {
            window = try geometryParams.transposedGeometry(height: classic.height, width: classic.width)
        } catch let error as LayerSpecificationError {
            throw fail(error.message)
        }
        inputSize = (classic.height, classic.width)
    }

    private var perGroup: Int { inputChannels / groups }
    private var outPerGroup: Int { outputChannels / groups }
    /// Rows of a group's columns: its output channels times the kernel taps.
    private var rows: Int { outPerGroup * kernel.h * kernel.w }
    private var plane: Int { inputSize.h * inputSize.w }
    private var outPlane: Int { window.outputHeight * window.outputWidth }

    override var multiplyAddsPerExample: Int { input.shape.classic.outer * inputChannels * plane * rows }

    override func reserve(batch: Int, training: Bool) {
        columns.reserve(rows * plane)
    }

    /// `body` for every image of the batch and every group: the image's index and the group's.
    private func eachImageAndGroup(batch: Int, _ body: (Int, Int) -> Void) {
        for image in 0..<(batch * input.shape.classic.outer) {
            for group in 0..<groups { body(image, group) }
        }
    }

    override func forward(batch: Int, training: Bool) {
        let images = batch * input.shape.classic.outer
        let y = output.value.pointer
        y.update(repeating: 0, count: images * outputChannels * outPlane)
        let (rows, plane, outPlane, perGroup, outPerGroup) = (rows, plane, outPlane, perGroup, outPerGroup)
        eachImageAndGroup(batch: batch) { image, group in
            // columns (C_out/g·kH·kW × H·W) = W_gᵀ · X_g
            ocm_sgemm(true, false, Int32(rows), Int32(plane), Int32(perGroup), 1, weights.value.pointer + group * perGroup * rows, Int32(rows),
                      input.value.pointer + (image * inputChannels + group * perGroup) * plane, Int32(plane), 0, columns.pointer, Int32(plane))
            ocm_col2im(columns.pointer, Int32(outPerGroup), Int32(window.outputHeight), Int32(window.outputWidth), Int32(kernel.h), Int32(kernel.w),
                       Int32(stride.h), Int32(stride.w), Int32(dilation.h), Int32(dilation.w), Int32(window.padTop), Int32(window.padLeft),
                       Int32(inputSize.h), Int32(inputSize.w), y + (image * outputChannels + group * outPerGroup) * outPlane)
        }
        if let bias {
            for image in 0..<images {
                for channel in 0..<outputChannels {
                    let base = y + (image * outputChannels + channel) * outPlane, value = bias.value.pointer[channel]
                    for index in 0..<outPlane { base[index] += value }
                }
            }
        }
    }

    override var hasBackward: Bool { true }

    override func backward(batch: Int) {
        let images = batch * input.shape.classic.outer
        let dy = output.gradient.pointer
        let (rows, plane, outPlane, perGroup, outPerGroup) = (rows, plane, outPlane, perGroup, outPerGroup)
        if let bias, bias.isTrainable {
            for channel in 0..<outputChannels {
                var sum: Float = 0
                for image in 0..<images {
                    let base = dy + (image * outputChannels + channel) * outPlane
                    for index in 0..<outPlane { sum += base[index] }
                }
                bias.gradient.pointer[channel] = sum
            }
        }
        let trainsWeights = weights.isTrainable
        if trainsWeights { weights.gradient.pointer.update(repeating: 0, count: weights.count) }
        guard trainsWeights || input.needsGradient else { return }
        /// Both gradients of every image and group; `dx` and `accumulate` when the input needs its gradient.
        func pass(_ dx: UnsafeMutablePointer<Float>?, accumulate: Bool) {
            eachImageAndGroup(batch: batch) { image, group in
                // dC (C_out/g·kH·kW × H·W): the output gradient at every tap of every input position.
                ocm_im2col(dy + (image * outputChannels + group * outPerGroup) * outPlane, Int32(outPerGroup), Int32(window.outputHeight),
                           Int32(window.outputWidth), Int32(kernel.h), Int32(kernel.w), Int32(stride.h), Int32(stride.w), Int32(dilation.h),
                           Int32(dilation.w), Int32(window.padTop), Int32(window.padLeft), Int32(inputSize.h), Int32(inputSize.w), columns.pointer)
                if trainsWeights {
                    // dW_g (C_in/g × rows) += X_g (C_in/g × H·W) · dCᵀ
                    ocm_sgemm(false, true, Int32(perGroup), Int32(rows), Int32(plane), 1,
                              input.value.pointer + (image * inputChannels + group * perGroup) * plane, Int32(plane), columns.pointer, Int32(plane), 1,
                              weights.gradient.pointer + group * perGroup * rows, Int32(rows))
                }
                if let dx {
                    // dX_g (C_in/g × H·W) = W_g (C_in/g × rows) · dC
                    ocm_sgemm(false, false, Int32(perGroup), Int32(plane), Int32(rows), 1, weights.value.pointer + group * perGroup * rows, Int32(rows),
                              columns.pointer, Int32(plane), accumulate ? 1 : 0, dx + (image * inputChannels + group * perGroup) * plane, Int32(plane))
                }
            }
        }
        if input.needsGradient {
            input.writeGradient { dx, accumulate in pass(dx, accumulate: accumulate) }
        } else {
            pass(nil, accumulate: false)
        }
    }

    override func store(in spec: inout CoreML_Specification_NeuralNetworkLayer) {
        guard case .convolution(var params)? = spec.layer else { return }
        weights.store(in: &params.weights)
        bias?.store(in: &params.bias)
        spec.convolution = params
    }
}
