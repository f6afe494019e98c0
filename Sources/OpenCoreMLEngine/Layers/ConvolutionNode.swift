import CoreMLSpec
import _OpenCoreMLKernels

/// A 2-D convolution (groups, stride, dilation, valid/same padding) by im2col and GEMM, one image
/// per thread. The forward pass keeps each image's columns for the backward pass when training.
///
/// Deconvolution (`isDeconvolution`) is not supported.
final class ConvolutionNode: LayerNode, @unchecked Sendable {
    let outputChannels: Int
    let kernelChannels: Int
    let groups: Int
    let kernel: (h: Int, w: Int)
    let stride: (h: Int, w: Int)
    let dilation: (h: Int, w: Int)
    let padding: CoreML_Specification_ConvolutionLayerParams.OneOf_ConvolutionPaddingType?
    let weights: Parameter
    let bias: Parameter?

    // Set by inferShapes().
    private var inputSize = (c: 0, h: 0, w: 0)
    private var outputSize = (h: 0, w: 0)
    private var padTop = 0, padLeft = 0
    /// Whether im2col is the identity (1×1 kernel, stride 1, no padding), so the input is used as is.
    private var isPointwise = false

    /// Columns of every image (training) or of one image per chunk (inference).
    private let columns = FloatBuffer()
    /// Per-chunk scratch for the backward pass: column gradients and weight/bias gradient partials.
    private let columnGradients = FloatBuffer()
    private let weightPartials = FloatBuffer()
    private var keepsColumns = false

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_ConvolutionLayerParams, inputs: [Blob], outputs: [Blob]) throws {
        outputChannels = Int(params.outputChannels)
        kernelChannels = Int(params.kernelChannels)
        groups = max(1, Int(params.nGroups))
        let size = params.kernelSize.count == 2 ? params.kernelSize.map(Int.init) : [3, 3]
        let strides = params.stride.count == 2 ? params.stride.map(Int.init) : [1, 1]
        let dilations = params.dilationFactor.count == 2 ? params.dilationFactor.map(Int.init) : [1, 1]
        kernel = (size[0], size[1])
        stride = (strides[0], strides[1])
        dilation = (dilations[0], dilations[1])
        padding = params.convolutionPaddingType
        let weightCount = outputChannels * kernelChannels * kernel.h * kernel.w
        weights = try Parameter(layer: spec, field: "weights", weights: params.weights, expected: weightCount)
        bias = params.hasBias_p ? try Parameter(layer: spec, field: "bias", weights: params.bias, expected: outputChannels) : nil
        super.init(spec, inputs: inputs, outputs: outputs)
        parameters = [weights] + (bias.map { [$0] } ?? [])
        if params.isDeconvolution { throw fail("deconvolution is not supported yet") }
        if outputChannels % groups != 0 { throw fail("\(outputChannels) output channels do not split into \(groups) groups") }
    }

    private var patchSize: Int { kernelChannels * kernel.h * kernel.w }
    private var positions: Int { outputSize.h * outputSize.w }

    override func inferShapes() throws {
        let (outer, c, h, w) = input.shape.classic
        guard c == kernelChannels * groups else {
            throw fail("input '\(input.name)' has \(c) channels, the layer expects \(kernelChannels * groups) (\(kernelChannels) per group × \(groups) groups)")
        }
        let extentH = dilation.h * (kernel.h - 1) + 1, extentW = dilation.w * (kernel.w - 1) + 1
        var top = 0, bottom = 0, left = 0, right = 0
        var outH: Int, outW: Int
        switch padding {
        case .same(let same)?:
            outH = (h + stride.h - 1) / stride.h
            outW = (w + stride.w - 1) / stride.w
            let totalH = max(0, (outH - 1) * stride.h + extentH - h), totalW = max(0, (outW - 1) * stride.w + extentW - w)
            let topLeftHeavy = same.asymmetryMode == .topLeftHeavy
            top = topLeftHeavy ? (totalH + 1) / 2 : totalH / 2
            left = topLeftHeavy ? (totalW + 1) / 2 : totalW / 2
        case .valid(let valid)?:
            let amounts = valid.paddingAmounts.borderAmounts
            if amounts.count == 2 {
                top = Int(amounts[0].startEdgeSize); bottom = Int(amounts[0].endEdgeSize)
                left = Int(amounts[1].startEdgeSize); right = Int(amounts[1].endEdgeSize)
            }
            outH = (h + top + bottom - extentH) / stride.h + 1
            outW = (w + left + right - extentW) / stride.w + 1
        case nil:
            outH = (h - extentH) / stride.h + 1
            outW = (w - extentW) / stride.w + 1
        }
        guard outH > 0, outW > 0, h + top + bottom >= extentH, w + left + right >= extentW else {
            throw fail("input '\(input.name)' (\(h)×\(w)) is smaller than the \(kernel.h)×\(kernel.w) kernel")
        }
        inputSize = (c, h, w)
        outputSize = (outH, outW)
        padTop = top
        padLeft = left
        isPointwise = kernel == (1, 1) && stride == (1, 1) && top == 0 && left == 0 && outH == h && outW == w
        output.shape = .classic(outer: outer, channels: outputChannels, height: outH, width: outW)
    }

    override func reserve(batch: Int, training: Bool) {
        let images = batch * input.shape.classic.outer
        let perImage = groups * patchSize * positions
        keepsColumns = training
        if !isPointwise {
            columns.reserve(training ? images * perImage : chunkCount(images) * perImage)
        }
        if training {
            columnGradients.reserve(chunkCount(images) * patchSize * positions)
            weightPartials.reserve(chunkCount(images) * (weights.count + outputChannels))
        }
    }

    /// The columns of image `image` (chunk `chunk` when they are not kept), group `group`.
    private func columnPointer(image: Int, chunk: Int, group: Int) -> UnsafeMutablePointer<Float> {
        let perImage = groups * patchSize * positions
        return columns.pointer + (keepsColumns ? image : chunk) * perImage + group * patchSize * positions
    }

    private func inputPlane(_ base: UnsafeMutablePointer<Float>, image: Int, group: Int) -> UnsafeMutablePointer<Float> {
        base + image * inputSize.c * inputSize.h * inputSize.w + group * kernelChannels * inputSize.h * inputSize.w
    }

    override func forward(batch: Int, training: Bool) {
        let images = batch * input.shape.classic.outer
        if !training && kernelChannels == 1 && groups == outputChannels && groups > 1 {
            let depthwise = DepthwiseConvolution(
                channels: groups, input: (inputSize.h, inputSize.w), output: outputSize, kernel: kernel, stride: stride,
                dilation: dilation, padTop: padTop, padLeft: padLeft)
            depthwise.forward(planes: images * groups, x: input.value.pointer, y: output.value.pointer,
                              weights: weights.value.pointer, bias: bias?.value.pointer)
            return
        }
        let perGroupOut = outputChannels / groups
        let outPlane = positions
        let x = input.value.pointer, y = output.value.pointer
        let run = { (chunk: Int, range: Range<Int>) in
            for image in range {
                for group in 0..<self.groups {
                    let source = self.inputPlane(x, image: image, group: group)
                    let cols: UnsafeMutablePointer<Float>
                    if self.isPointwise {
                        cols = source
                    } else {
                        cols = self.columnPointer(image: image, chunk: chunk, group: group)
                        ocm_im2col(source, Int32(self.kernelChannels), Int32(self.inputSize.h), Int32(self.inputSize.w),
                                   Int32(self.kernel.h), Int32(self.kernel.w), Int32(self.stride.h), Int32(self.stride.w),
                                   Int32(self.dilation.h), Int32(self.dilation.w), Int32(self.padTop), Int32(self.padLeft),
                                   Int32(self.outputSize.h), Int32(self.outputSize.w), cols)
                    }
                    let out = y + image * self.outputChannels * outPlane + group * perGroupOut * outPlane
                    let w = self.weights.value.pointer + group * perGroupOut * self.patchSize
                    ocm_sgemm(false, false, Int32(perGroupOut), Int32(outPlane), Int32(self.patchSize), 1,
                              w, Int32(self.patchSize), cols, Int32(outPlane), 0, out, Int32(outPlane))
                }
                if let bias = self.bias {
                    ocm_add_col_vector(y + image * self.outputChannels * outPlane, bias.value.pointer,
                                       Int32(self.outputChannels), Int32(outPlane), Int32(outPlane))
                }
            }
        }
        // Few images: one thread walks them and each GEMM uses the thread pool instead.
        if images < kernelThreadCount { run(0, 0..<images) } else { parallelChunks(images, run) }
    }

    override func backward(batch: Int) {
        let images = batch * input.shape.classic.outer
        let perGroupOut = outputChannels / groups
        let outPlane = positions
        let dy = output.gradient.pointer
        let trainsWeights = weights.isTrainable, trainsBias = bias?.isTrainable ?? false
        let needsInput = input.needsGradient
        let partialSize = weights.count + outputChannels
        let accumulateInput = input.gradientWritten
        let dxBase = input.gradient.pointer
        let chunks = chunkCount(images)
        let run = { (chunk: Int, range: Range<Int>) in
            let dW = self.weightPartials.pointer + chunk * partialSize
            let dB = dW + self.weights.count
            if trainsWeights { dW.update(repeating: 0, count: self.weights.count) }
            if trainsBias { dB.update(repeating: 0, count: self.outputChannels) }
            let dcols = self.columnGradients.pointer + chunk * self.patchSize * outPlane
            for image in range {
                let dyImage = dy + image * self.outputChannels * outPlane
                if trainsBias {
                    ocm_sum_cols(dyImage, dB, Int32(self.outputChannels), Int32(outPlane), Int32(outPlane), true)
                }
                if needsInput && !accumulateInput {
                    let size = self.inputSize.c * self.inputSize.h * self.inputSize.w
                    (dxBase + image * size).update(repeating: 0, count: size)
                }
                for group in 0..<self.groups {
                    let dyGroup = dyImage + group * perGroupOut * outPlane
                    let cols = self.isPointwise
                        ? self.inputPlane(self.input.value.pointer, image: image, group: group)
                        : self.columnPointer(image: image, chunk: chunk, group: group)
                    if trainsWeights {
                        // dW_g (out×patch) += dY_g (out×P) · colsᵀ (P×patch)
                        ocm_sgemm(false, true, Int32(perGroupOut), Int32(self.patchSize), Int32(outPlane), 1,
                                  dyGroup, Int32(outPlane), cols, Int32(outPlane), 1,
                                  dW + group * perGroupOut * self.patchSize, Int32(self.patchSize))
                    }
                    if needsInput {
                        let w = self.weights.value.pointer + group * perGroupOut * self.patchSize
                        let dx = self.inputPlane(dxBase, image: image, group: group)
                        if self.isPointwise {
                            ocm_sgemm(true, false, Int32(self.patchSize), Int32(outPlane), Int32(perGroupOut), 1,
                                      w, Int32(self.patchSize), dyGroup, Int32(outPlane), 1, dx, Int32(outPlane))
                        } else {
                            // dcols (patch×P) = W_gᵀ · dY_g, then folded back into the image.
                            ocm_sgemm(true, false, Int32(self.patchSize), Int32(outPlane), Int32(perGroupOut), 1,
                                      w, Int32(self.patchSize), dyGroup, Int32(outPlane), 0, dcols, Int32(outPlane))
                            ocm_col2im(dcols, Int32(self.kernelChannels), Int32(self.inputSize.h), Int32(self.inputSize.w),
                                       Int32(self.kernel.h), Int32(self.kernel.w), Int32(self.stride.h), Int32(self.stride.w),
                                       Int32(self.dilation.h), Int32(self.dilation.w), Int32(self.padTop), Int32(self.padLeft),
                                       Int32(self.outputSize.h), Int32(self.outputSize.w), dx)
                        }
                    }
                }
            }
        }
        // Few images: one thread walks them and each GEMM uses the thread pool instead.
        let serial = images < kernelThreadCount
        if serial { run(0, 0..<images) } else { parallelChunks(images, run) }
        if needsInput { input.gradientWritten = true }
        // Sum the per-chunk partials into the parameter gradients.
        let used = serial ? 1 : chunks
        if trainsWeights {
            weights.gradient.pointer.update(from: weightPartials.pointer, count: weights.count)
            for chunk in 1..<max(used, 1) {
                ocm_axpy(weightPartials.pointer + chunk * partialSize, weights.gradient.pointer, weights.count, 1)
            }
        }
        if let bias, trainsBias {
            bias.gradient.pointer.update(from: weightPartials.pointer + weights.count, count: outputChannels)
            for chunk in 1..<max(used, 1) {
                ocm_axpy(weightPartials.pointer + chunk * partialSize + weights.count, bias.gradient.pointer, outputChannels, 1)
            }
        }
    }

    override func store(in spec: inout CoreML_Specification_NeuralNetworkLayer) {
        guard case .convolution(var params)? = spec.layer else { return }
        weights.store(in: &params.weights)
        bias?.store(in: &params.bias)
        spec.convolution = params
    }
}
