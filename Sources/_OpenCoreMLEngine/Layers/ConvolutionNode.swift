import CoreMLSpec
import _OpenCoreMLKernels

/// A 2-D convolution (groups, stride, dilation, valid/same padding) by im2col and GEMM, images
/// split over the threads. Each thread unfolds one image at a time into its own columns buffer
/// (the backward pass unfolds it again rather than keeping every image's columns), so the
/// columns stay in cache. The network can fuse a ReLU (then a max pooling) or a clip (ReLU6) after
/// the convolution into it (`fuse(_:pool:)`): they then run on each image's output while it is in
/// cache, the bias and activation on each finished block of the product (`ocm_sgemm_epilogue`).
/// Weights that never train are packed for the GEMM kernel once (inference); a 3×3 stride-1
/// convolution of 16 or more channels each way with such weights runs by Winograd instead
/// (``WinogradConvolution``).
///
/// Deconvolution (`isDeconvolution`) is not supported.
final class ConvolutionNode: LayerNode, @unchecked Sendable {
    let outputChannels: Int
    let kernelChannels: Int
    let groups: Int
    let kernel: (h: Int, w: Int)
    let stride: (h: Int, w: Int)
    let dilation: (h: Int, w: Int)
    /// The layer's sizes and padding, without its weights (for `geometry(height:width:)`).
    private let geometryParams: CoreML_Specification_ConvolutionLayerParams
    let weights: Parameter
    let bias: Parameter?

    // Set by prepareForShapes().
    private var inputSize = (c: 0, h: 0, w: 0)
    private var outputSize = (h: 0, w: 0)
    private var padTop = 0, padLeft = 0
    /// Whether im2col is the identity (1×1 kernel, stride 1, no padding; or one kernel position
    /// covering the whole input), so the input is used as is.
    private var isPointwise = false

    /// Whether each image gives one output position through one group and no fused pooling: the
    /// whole batch is then one GEMM, `Y (images × out) = X (images × patch) · Wᵀ`, as in an inner product.
    private var isSinglePosition: Bool { isPointwise && positions == 1 && groups == 1 && fusedPool == nil }
    /// The batch's output gradient before a fused ReLU (single-position convolutions).
    private let batchGradient = FloatBuffer()

    /// The ReLU or clip and the max pooling that run inside this layer, when fused (see
    /// `Network.fuseConvolutionChains`).
    private(set) var fusedActivation: FusedActivation?
    private(set) var fusedPool: PoolingNode?

    /// Per-chunk scratch: one image's columns (all groups).
    private let columns = FloatBuffer()
    /// Per-chunk scratch: one image's output before pooling (fused pooling only).
    private let imageOutput = FloatBuffer()
    /// Per-chunk scratch for the backward pass: the output gradient of one image (fused layers),
    /// the pooled gradient after the ReLU mask (pooling other than 2×2), column gradients; and
    /// weight/bias gradient partials per block of images.
    private let outputGradient = FloatBuffer()
    private let pooledGradient = FloatBuffer()
    private let columnGradients = FloatBuffer()
    private let weightPartials = FloatBuffer()
    /// Weights that never train, packed once for the GEMM kernel of the instruction set they were
    /// packed for (`packedFor`), one group after another: the forward pass then reads them as is
    /// instead of packing them again for every picture.
    private let packedWeights = FloatBuffer()
    private var packedFor: Int32 = -1

    /// The packed weights of every group, packing them first if the instruction set changed; nil
    /// for trainable weights (the optimizer changes them every step).
    private func packedWeightsIfConstant() -> (isa: Int32, groups: UnsafePointer<Float>, stride: Int)? {
        guard !weights.isTrainable else { return nil }
        let perGroupOut = outputChannels / groups
        let stride = ocm_sgemm_packed_a_floats(Int32(perGroupOut), Int32(patchSize))
        if packedFor != ocm_isa() {
            packedWeights.reserve(groups * stride)
            for group in 0..<groups {
                packedFor = ocm_sgemm_pack_a(false, Int32(perGroupOut), Int32(patchSize), weights.value.pointer + group * perGroupOut * patchSize,
                                             Int32(patchSize), packedWeights.pointer + group * stride)
            }
        }
        return (packedFor, UnsafePointer(packedWeights.pointer), stride)
    }

    /// Weights that never train, transformed for Winograd once, when the layer is a 3×3 stride-1
    /// convolution Winograd runs (inference); and its per-chunk scratch.
    private var winograd: WinogradConvolution?
    private let winogradScratch = FloatBuffer()

    private func winogradIfConstant() -> WinogradConvolution? {
        guard !weights.isTrainable,
              WinogradConvolution.applies(kernel: kernel, groups: groups, stride: stride, dilation: dilation,
                                          inChannels: kernelChannels, outChannels: outputChannels) else { return nil }
        if winograd == nil {
            winograd = WinogradConvolution(weights: weights.value.pointer, outChannels: outputChannels, inChannels: kernelChannels)
        }
        return winograd
    }

    /// The winners of the fused max pooling, every image (training).
    private let argmax = Int32Buffer()
    private var keepsArgmax = false

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_ConvolutionLayerParams, inputs: [Blob], outputs: [Blob]) throws {
        let location = "layer '\(spec.name)' (convolution)"
        guard inputs.count == 1 else { throw EngineError(location, "weights given as a second input are not supported yet") }
        let sizes: (kernel: (Int, Int), stride: (Int, Int), dilation: (Int, Int))
        do {
            sizes = try params.windowSizes()
        } catch let error as LayerSpecificationError {
            throw EngineError(location, error.message)
        }
        outputChannels = try Self.declaredSize(params.outputChannels, "outputChannels", of: spec)
        kernelChannels = try Self.declaredSize(params.kernelChannels, "kernelChannels", of: spec)
        groups = max(1, try Self.declaredSize(params.nGroups, "nGroups", of: spec))
        (kernel, stride, dilation) = (sizes.kernel, sizes.stride, sizes.dilation)
        var geometryParams = params
        geometryParams.weights = .init()
        geometryParams.bias = .init()
        self.geometryParams = geometryParams
        weights = try Parameter.required("weights", of: spec)
        bias = try Parameter.optional("bias", of: spec)
        super.init(spec, inputs: inputs, outputs: outputs)
        parameters = [weights] + (bias.map { [$0] } ?? [])
    }

    private var patchSize: Int { kernelChannels * kernel.h * kernel.w }
    private var positions: Int { outputSize.h * outputSize.w }
    private var pooledPositions: Int { fusedPool.map { $0.outputSize.h * $0.outputSize.w } ?? positions }

    override func prepareForShapes() throws {
        let classic = input.shape.classic, c = classic.channels, h = classic.height, w = classic.width
        // The layer table has checked that the kernel fits, so there is a geometry.
        guard let geometry = try? geometryParams.geometry(height: h, width: w) else {
            throw fail("input '\(input.name)' (\(h)×\(w)) does not fit the \(kernel.h)×\(kernel.w) kernel")
        }
        inputSize = (c, h, w)
        outputSize = (geometry.outputHeight, geometry.outputWidth)
        padTop = geometry.padTop
        padLeft = geometry.padLeft
        // A kernel that covers the whole unpadded input once (an activity classifier's convolution
        // over a window) also reads each image as its own single column.
        isPointwise = padTop == 0 && padLeft == 0 && (
            (kernel == (1, 1) && stride == (1, 1) && outputSize == (h, w))
            || (kernel == (h, w) && dilation == (1, 1) && outputSize == (1, 1)))
    }

    /// Runs `activation` (reading this layer's output) and then `pool` (reading the ReLU's output;
    /// a ReLU only) inside this layer; their in-between blobs are no longer filled.
    func fuse(_ activation: FusedActivation, pool: PoolingNode?) {
        precondition(pool == nil || activation.bounds == nil, "only a ReLU fuses with a pooling")
        fusedActivation = activation
        fusedPool = pool
    }

    override var profileKind: String {
        if kernelChannels == 1 && groups == outputChannels && groups > 1 { return "depthwise convolution" }
        if isPointwise && kernel == (1, 1) { return groups > 1 ? "grouped pointwise convolution" : "pointwise convolution" }
        return groups > 1 ? "grouped convolution" : "convolution"
    }

    override var multiplyAddsPerExample: Int { input.shape.classic.outer * outputChannels * positions * patchSize }

    override var producedOutputs: [Blob] { [fusedPool?.output ?? fusedActivation?.output ?? output] }

    override func reserve(batch: Int, training: Bool) {
        let images = batch * input.shape.classic.outer
        if fusedPool != nil {
            keepsArgmax = training
            if training { argmax.reserve(images * outputChannels * pooledPositions) }
        }
        reserveScratch(images: images, training: training)
    }

    /// Sizes the per-thread scratch for `images` images at the current thread count and returns
    /// the number of slots; each pass calls it again and runs on at most that many threads, as
    /// the thread count may change (from another thread) at any time.
    @discardableResult
    private func reserveScratch(images: Int, training: Bool) -> Int {
        let chunks = chunkCount(images)
        let outputSize = outputChannels * positions
        // Winograd (inference with constant weights) unfolds nothing.
        if !isPointwise && (training || winogradIfConstant() == nil) { columns.reserve(chunks * groups * patchSize * positions) }
        if fusedPool != nil { imageOutput.reserve(chunks * outputSize) }
        if training {
            if fusedActivation != nil { outputGradient.reserve(chunks * outputSize) }
            if fusedPool != nil { pooledGradient.reserve(chunks * outputChannels * pooledPositions) }
            if !isPointwise { columnGradients.reserve(chunks * patchSize * positions) }
            weightPartials.reserve(Self.blockCount(images) * (weights.count + outputChannels))
        }
        return chunks
    }

    private func inputPlane(_ base: UnsafeMutablePointer<Float>, image: Int, group: Int) -> UnsafeMutablePointer<Float> {
        base + image * inputSize.c * inputSize.h * inputSize.w + group * kernelChannels * inputSize.h * inputSize.w
    }

    /// Unfolds group `group` of image `image` into chunk `chunk`'s columns and returns them (the
    /// input itself for a pointwise convolution).
    private func unfold(_ x: UnsafeMutablePointer<Float>, image: Int, group: Int, chunk: Int) -> UnsafeMutablePointer<Float> {
        let source = inputPlane(x, image: image, group: group)
        if isPointwise { return source }
        let cols = columns.pointer + (chunk * groups + group) * patchSize * positions
        ocm_im2col(source, Int32(kernelChannels), Int32(inputSize.h), Int32(inputSize.w),
                   Int32(kernel.h), Int32(kernel.w), Int32(stride.h), Int32(stride.w),
                   Int32(dilation.h), Int32(dilation.w), Int32(padTop), Int32(padLeft),
                   Int32(outputSize.h), Int32(outputSize.w), cols)
        return cols
    }

    /// Where image `image`'s convolution output goes: the output blob, the fused ReLU's output
    /// (made in place), or chunk scratch that the fused pooling reads.
    private func outputPointer(image: Int, chunk: Int) -> UnsafeMutablePointer<Float> {
        let size = outputChannels * positions
        if fusedPool != nil { return imageOutput.pointer + chunk * size }
        return (fusedActivation?.output ?? output).value.pointer + image * size
    }

    override func forward(batch: Int, training: Bool) {
        let images = batch * input.shape.classic.outer
        if !training && kernelChannels == 1 && groups == outputChannels && groups > 1 && fusedPool == nil {
            let depthwise = DepthwiseConvolution(
                channels: groups, input: (inputSize.h, inputSize.w), output: outputSize, kernel: kernel, stride: stride,
                dilation: dilation, padTop: padTop, padLeft: padLeft)
            depthwise.forward(planes: images * groups, x: input.value.pointer, y: (fusedActivation?.output ?? output).value.pointer,
                              weights: weights.value.pointer, bias: bias?.value.pointer,
                              bounds: fusedActivation?.clampBounds ?? (-.infinity, .infinity))
            return
        }
        if isSinglePosition {
            let out = (fusedActivation?.output ?? output).value.pointer
            ocm_sgemm(false, true, Int32(images), Int32(outputChannels), Int32(patchSize), 1, input.value.pointer, Int32(patchSize),
                      weights.value.pointer, Int32(patchSize), 0, out, Int32(outputChannels))
            if let bias { ocm_add_row_vector(out, bias.value.pointer, Int32(images), Int32(outputChannels), Int32(outputChannels)) }
            fusedActivation?.forward(out, count: images * outputChannels)
            return
        }
        let perGroupOut = outputChannels / groups
        let outPlane = positions
        let x = input.value.pointer
        let pooledSize = outputChannels * pooledPositions
        let slots = reserveScratch(images: images, training: false)
        let winograd = training ? nil : winogradIfConstant()
        let packed = training || winograd != nil ? nil : packedWeightsIfConstant()
        let winogradFloats = winograd?.scratchFloats(outH: outputSize.h, outW: outputSize.w) ?? 0
        winogradScratch.reserve(slots * winogradFloats)
        let run = { (chunk: Int, image: Int) in
            do {
                let out = self.outputPointer(image: image, chunk: chunk)
                if let winograd {
                    // The bias inside; the fused activation after, as the layer defines it (a ReLU's NaN becomes 0).
                    winograd.convolve(self.inputPlane(x, image: image, group: 0), into: out, height: self.inputSize.h, width: self.inputSize.w,
                                      padTop: self.padTop, padLeft: self.padLeft, outH: self.outputSize.h, outW: self.outputSize.w,
                                      bias: self.bias.map { UnsafePointer($0.value.pointer) }, clampedTo: (-.infinity, .infinity),
                                      scratch: self.winogradScratch.pointer + chunk * winogradFloats)
                    self.fusedActivation?.forward(out, count: self.outputChannels * outPlane)
                }
                for group in 0..<(winograd == nil ? self.groups : 0) {
                    let cols = self.unfold(x, image: image, group: group, chunk: chunk)
                    let w = self.weights.value.pointer + group * perGroupOut * self.patchSize
                    // The bias and the fused activation run on each finished block of the product.
                    let epilogue = FusedActivation.epilogue(self.fusedActivation, rowBias: self.bias.map { $0.value.pointer + group * perGroupOut })
                    let y = out + group * perGroupOut * outPlane
                    if let packed {
                        ocm_sgemm_prepacked(packed.isa, packed.groups + group * packed.stride, false, Int32(perGroupOut), Int32(outPlane),
                                            Int32(self.patchSize), 1, cols, Int32(outPlane), 0, y, Int32(outPlane), epilogue)
                    } else {
                        ocm_sgemm_epilogue(false, false, Int32(perGroupOut), Int32(outPlane), Int32(self.patchSize), 1,
                                           w, Int32(self.patchSize), cols, Int32(outPlane), 0, y, Int32(outPlane), epilogue)
                    }
                }
                if let pool = self.fusedPool {
                    let winners = self.keepsArgmax ? self.argmax.pointer + image * pooledSize : nil
                    ocm_maxpool2d(out, pool.output.value.pointer + image * pooledSize, winners, Int32(self.outputChannels),
                                  Int32(self.outputSize.h), Int32(self.outputSize.w), Int32(pool.kernel.h), Int32(pool.kernel.w),
                                  Int32(pool.stride.h), Int32(pool.stride.w), Int32(pool.padTop), Int32(pool.padLeft),
                                  Int32(pool.outputSize.h), Int32(pool.outputSize.w))
                }
            }
        }
        // Few images: one thread walks them and each GEMM uses the thread pool instead.
        if images < kernelThreadCount {
            for image in 0..<images { run(0, image) }
        } else {
            parallelForEach(images, slots: slots, run)
        }
    }

    /// The gradient of image `image`'s convolution output (before the fused ReLU): the output
    /// blob's, or made in chunk scratch from the fused layers' output gradient.
    private func outputGradientPointer(image: Int, chunk: Int) -> UnsafeMutablePointer<Float> {
        let size = outputChannels * positions
        guard let activation = fusedActivation else { return output.gradient.pointer + image * size }
        let dy = outputGradient.pointer + chunk * size
        if let pool = fusedPool {
            // The ReLU passes a pooled gradient where the winner (the pooled value) is positive.
            let pooledSize = outputChannels * pooledPositions
            let offset = image * pooledSize
            let pooled = pool.output.value.pointer + offset, pooledDY = pool.output.gradient.pointer + offset
            let winners = argmax.pointer + offset
            let (h, w) = (Int32(outputSize.h), Int32(outputSize.w)), (ph, pw) = (Int32(pool.outputSize.h), Int32(pool.outputSize.w))
            if pool.isMaxPooling2x2 {
                ocm_maxpool2x2_backward(pooledDY, pooled, winners, dy, Int32(outputChannels), h, w, ph, pw)
            } else {
                let masked = pooledGradient.pointer + chunk * pooledSize
                ocm_relu_backward(pooled, pooledDY, masked, pooledSize)
                ocm_maxpool2d_backward(masked, winners, dy, Int32(outputChannels), h, w, ph, pw, false)
            }
        } else {
            activation.backward(output: activation.output.value.pointer + image * size,
                                gradient: activation.output.gradient.pointer + image * size, into: dy, count: size)
        }
        return dy
    }

    /// Images per weight-gradient partial in the backward pass. Blocks are handed to threads as
    /// they come free, and the partials are summed in block order, so the gradient does not depend
    /// on which thread ran which block.
    private static let imagesPerBlock = 8

    private static func blockCount(_ images: Int) -> Int { (images + imagesPerBlock - 1) / imagesPerBlock }

    override func backward(batch: Int) {
        let images = batch * input.shape.classic.outer
        if isSinglePosition {
            backwardSinglePosition(images: images)
            return
        }
        let perGroupOut = outputChannels / groups
        let outPlane = positions
        let trainsWeights = weights.isTrainable, trainsBias = bias?.isTrainable ?? false
        let needsInput = input.needsGradient
        let partialSize = weights.count + outputChannels
        let accumulateInput = input.gradientWritten
        let x = input.value.pointer, dxBase = input.gradient.pointer
        let blocks = Self.blockCount(images)
        let slots = reserveScratch(images: images, training: true)
        let run = { (chunk: Int, block: Int) in
            let dW = self.weightPartials.pointer + block * partialSize
            let dB = dW + self.weights.count
            if trainsWeights || trainsBias { dW.update(repeating: 0, count: partialSize) }
            let dcols = self.columnGradients.pointer + chunk * self.patchSize * outPlane
            for image in (block * Self.imagesPerBlock)..<min(images, (block + 1) * Self.imagesPerBlock) {
                let dyImage = self.outputGradientPointer(image: image, chunk: chunk)
                if trainsBias {
                    ocm_sum_cols(dyImage, dB, Int32(self.outputChannels), Int32(outPlane), Int32(outPlane), true)
                }
                if needsInput && !accumulateInput {
                    let size = self.inputSize.c * self.inputSize.h * self.inputSize.w
                    (dxBase + image * size).update(repeating: 0, count: size)
                }
                for group in 0..<self.groups {
                    let dyGroup = dyImage + group * perGroupOut * outPlane
                    if trainsWeights {
                        // dW_g (out×patch) += dY_g (out×P) · colsᵀ (P×patch)
                        let cols = self.unfold(x, image: image, group: group, chunk: chunk)
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
        // Fewer images than threads: one thread walks them and each GEMM uses the thread pool.
        if images < kernelThreadCount {
            for block in 0..<blocks { run(0, block) }
        } else {
            parallelForEach(blocks, slots: slots, run)
        }
        if needsInput { input.gradientWritten = true }
        // Sum the per-block partials into the parameter gradients, in block order.
        if trainsWeights {
            weights.gradient.pointer.update(from: weightPartials.pointer, count: weights.count)
            for block in 1..<max(blocks, 1) {
                ocm_axpy(weightPartials.pointer + block * partialSize, weights.gradient.pointer, weights.count, 1)
            }
        }
        if let bias, trainsBias {
            bias.gradient.pointer.update(from: weightPartials.pointer + weights.count, count: outputChannels)
            for block in 1..<max(blocks, 1) {
                ocm_axpy(weightPartials.pointer + block * partialSize + weights.count, bias.gradient.pointer, outputChannels, 1)
            }
        }
    }

    /// The backward pass of a single-position convolution: three GEMM-shaped steps over the batch.
    private func backwardSinglePosition(images: Int) {
        let count = images * outputChannels
        var dy = output.gradient.pointer
        if let activation = fusedActivation {
            batchGradient.reserve(count)
            dy = batchGradient.pointer
            activation.backward(output: activation.output.value.pointer, gradient: activation.output.gradient.pointer, into: dy, count: count)
        }
        let (n, k) = (Int32(outputChannels), Int32(patchSize))
        if weights.isTrainable {
            ocm_sgemm(true, false, n, k, Int32(images), 1, dy, n, input.value.pointer, k, 0, weights.gradient.pointer, k)
        }
        if let bias, bias.isTrainable { ocm_sum_rows(dy, bias.gradient.pointer, Int32(images), n, n, false) }
        if input.needsGradient {
            // dX (images × patch) += dY · W
            ocm_sgemm(false, false, Int32(images), k, n, 1, dy, n, weights.value.pointer, k, input.gradientWritten ? 1 : 0,
                      input.gradient.pointer, k)
            input.gradientWritten = true
        }
    }

    override func store(in spec: inout CoreML_Specification_NeuralNetworkLayer) {
        guard case .convolution(var params)? = spec.layer else { return }
        weights.store(in: &params.weights)
        bias?.store(in: &params.bias)
        spec.convolution = params
    }
}
