import CoreMLSpec
import _OpenCoreMLKernels

/// A classic 2-D convolution layer (groups, stride, dilation, valid/same padding): an adapter from
/// the layer's parameters onto ``Conv2DPlan``, which chooses the path and owns the prepared
/// weights, plus the training pass. The batch's images are split over the threads, each unfolded
/// into its own columns (the backward pass unfolds it again rather than keeping every image's
/// columns), so the columns stay in cache. The network can fuse a ReLU (then a max pooling) or a
/// clip (ReLU6) after the convolution into it (`fuse(_:pool:)`): they then run on each image's
/// output while it is in cache, the bias and activation on each finished block of the product.
/// Weights that never train are prepared once (packed, or transformed for Winograd) at the first
/// inference pass.
///
/// Deconvolution (`isDeconvolution`) is ``DeconvolutionNode``.
final class ConvolutionNode: LayerNode, @unchecked Sendable {
    /// The layer's sizes.
    let layout: Conv2DPlan.Layout
    var outputChannels: Int { layout.outChannels }
    var kernelChannels: Int { layout.inPerGroup }
    var groups: Int { layout.groups }
    /// The layer's sizes and padding, without its weights (for `geometry(height:width:)`).
    private let geometryParams: CoreML_Specification_ConvolutionLayerParams
    let weights: Parameter
    let bias: Parameter?

    /// The window on the current input (set by prepareForShapes()).
    private var window: Window2D?
    private var inputSize = (c: 0, h: 0, w: 0)
    private var outputSize = (h: 0, w: 0)
    private var padTop = 0, padLeft = 0

    /// The plan for weights that train (each pass gives it the weights as they are) and, made at
    /// the first inference pass, the plan with constant weights prepared.
    private let trainingPlan: Conv2DPlan
    private var constantPlan: Conv2DPlan?

    /// Whether the input is used as is (see ``Conv2DPlan/isPointwise(_:)``).
    private var isPointwise: Bool { window.map(trainingPlan.isPointwise) ?? false }
    /// Whether each image gives one output position through one group and no fused pooling: the
    /// whole batch is then one GEMM (``Conv2DPlan/Path/singlePosition``).
    private var isSinglePosition: Bool { isPointwise && positions == 1 && groups == 1 && fusedPool == nil }
    /// The batch's output gradient before a fused ReLU (single-position convolutions).
    private let batchGradient = FloatBuffer()

    /// The ReLU or clip and the max pooling that run inside this layer, when fused (see
    /// `Network.fuseConvolutionChains`).
    private(set) var fusedActivation: FusedActivation?
    private(set) var fusedPool: PoolingNode?

    /// Per-chunk scratch of the plan (columns, Winograd's) and of the backward pass (one image's columns).
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

    /// The winners of the fused max pooling, every image (training).
    private let argmax = Int32Buffer()
    private var keepsArgmax = false

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_ConvolutionLayerParams, inputs: [Blob], outputs: [Blob]) throws {
        let location = "layer '\(spec.name)' (convolution)"
        guard inputs.count == 1 else { throw EngineError(location, "weights given as a second input are not supported yet") }
        let sizes = try params.windowSizes(at: location)
        layout = Conv2DPlan.Layout(outChannels: try Self.declaredSize(params.outputChannels, "outputChannels", of: spec),
                                   inPerGroup: try Self.declaredSize(params.kernelChannels, "kernelChannels", of: spec),
                                   groups: max(1, try Self.declaredSize(params.nGroups, "nGroups", of: spec)),
                                   kernel: sizes.kernel, stride: sizes.stride, dilation: sizes.dilation)
        var geometryParams = params
        geometryParams.weights = .init()
        geometryParams.bias = .init()
        self.geometryParams = geometryParams
        weights = try Parameter.required("weights", of: spec)
        bias = try Parameter.optional("bias", of: spec)
        trainingPlan = Conv2DPlan(layout, constantWeights: nil)
        super.init(spec, inputs: inputs, outputs: outputs)
        parameters = [weights] + (bias.map { [$0] } ?? [])
    }

    override func prepareForShapes() throws {
        let classic = input.shape.classic, c = classic.channels, h = classic.height, w = classic.width
        // The layer table has checked that the kernel fits, so there is a geometry.
        guard let geometry = try? geometryParams.geometry(height: h, width: w) else {
            throw fail("input '\(input.name)' (\(h)×\(w)) does not fit the \(layout.kernel.h)×\(layout.kernel.w) kernel")
        }
        window = geometry
        inputSize = (c, h, w)
        outputSize = (geometry.outputHeight, geometry.outputWidth)
        padTop = geometry.padTop
        padLeft = geometry.padLeft
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
        if isPointwise && layout.kernel == (1, 1) { return groups > 1 ? "grouped pointwise convolution" : "pointwise convolution" }
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
        if let pass = pass(images: images, training: training) { columns.reserve(plan(training: training).scratchFloats(pass)) }
        reserveScratch(images: images, training: training)
    }

    private var patchSize: Int { kernelChannels * layout.kernel.h * layout.kernel.w }
    private var positions: Int { outputSize.h * outputSize.w }
    private var pooledPositions: Int { fusedPool.map { $0.outputSize.h * $0.outputSize.w } ?? positions }

    /// The plan a pass runs: at inference with weights that never train, the one with the weights
    /// prepared (made now, the first time).
    private func plan(training: Bool) -> Conv2DPlan {
        guard !training, !weights.isTrainable else { return trainingPlan }
        if let constantPlan { return constantPlan }
        let plan = Conv2DPlan(trainingPlan.layout, constantWeights: UnsafeBufferPointer(start: weights.value.pointer, count: weights.count))
        constantPlan = plan
        return plan
    }

    /// A forward pass over `images` images, into the fused layers' outputs; nil before the shapes are known.
    private func pass(images: Int, training: Bool) -> Conv2DPlan.Pass? {
        guard let window else { return nil }
        // The bias and the fused activation run on each finished block of the product.
        return Conv2DPlan.Pass(x: input.value.pointer, y: (fusedActivation?.output ?? output).value.pointer, images: images, window: window,
                               weights: weights.value.pointer, epilogue: FusedActivation.epilogue(fusedActivation, rowBias: bias?.value.pointer),
                               training: training, imagesAcrossThreads: true)
    }

    /// Sizes the per-thread scratch of the fused pooling and of the backward pass for `images`
    /// images at the current thread count and returns the number of slots; each pass calls it again
    /// and runs on at most that many threads, as the thread count may change (from another thread)
    /// at any time.
    @discardableResult
    private func reserveScratch(images: Int, training: Bool) -> Int {
        let chunks = chunkCount(images)
        let outputSize = outputChannels * positions
        if training {
            if !isPointwise { columns.reserve(chunks * patchSize * positions) }
            if fusedActivation != nil { outputGradient.reserve(chunks * outputSize) }
            if fusedPool != nil { pooledGradient.reserve(chunks * outputChannels * pooledPositions) }
            if !isPointwise { columnGradients.reserve(chunks * patchSize * positions) }
            weightPartials.reserve(Self.blockCount(images) * (weights.count + outputChannels))
        }
        return chunks
    }

    /// Unfolds group `group` of image `image` into chunk `chunk`'s columns and returns them (the
    /// input itself for a pointwise convolution); backward pass.
    private func unfold(_ x: UnsafeMutablePointer<Float>, image: Int, group: Int, chunk: Int) -> UnsafePointer<Float> {
        let source = inputPlane(x, image: image, group: group)
        guard let window, !isPointwise else { return UnsafePointer(source) }
        let cols = columns.pointer + chunk * patchSize * positions
        trainingPlan.unfold(source, window, rows: 0..<window.outputHeight, into: cols)
        return UnsafePointer(cols)
    }

    private func inputPlane(_ base: UnsafeMutablePointer<Float>, image: Int, group: Int) -> UnsafeMutablePointer<Float> {
        base + image * inputSize.c * inputSize.h * inputSize.w + group * kernelChannels * inputSize.h * inputSize.w
    }

    override func forward(batch: Int, training: Bool) {
        let images = batch * input.shape.classic.outer
        guard var pass = pass(images: images, training: training) else { return }
        let plan = plan(training: training)
        if let pool = fusedPool, let pooling = pool.pooling {
            // Each image's output in its slot's scratch, pooled from there while in cache.
            let pooledSize = outputChannels * pooledPositions
            let (pooled, winners) = (pool.output.value.pointer, keepsArgmax ? argmax.pointer : nil)
            pass.perImage = (imageOutput.pointer, { image, output in
                pooling.forward(output, into: pooled + image * pooledSize, planes: self.outputChannels, argmax: winners.map { $0 + image * pooledSize })
            })
        }
        let slots = plan.scratchSlots(pass)
        columns.reserve(slots * plan.scratchFloatsPerSlot(pass))
        if fusedPool != nil {
            imageOutput.reserve(slots * outputChannels * positions)
            pass.perImage?.output = imageOutput.pointer
        }
        plan.forward(pass, scratch: columns.pointer)
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

    override var hasBackward: Bool { true }

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
                                       Int32(self.layout.kernel.h), Int32(self.layout.kernel.w), Int32(self.layout.stride.h), Int32(self.layout.stride.w),
                                       Int32(self.layout.dilation.h), Int32(self.layout.dilation.w), Int32(self.padTop), Int32(self.padLeft),
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

extension CoreML_Specification_ConvolutionLayerParams {
    /// The kernel, stride and dilation (``windowSizes()``), an error naming the layer at `location`
    /// when they are not valid sizes (for the convolution and deconvolution nodes).
    func windowSizes(at location: String) throws -> (kernel: (Int, Int), stride: (Int, Int), dilation: (Int, Int)) {
        do {
            return try windowSizes()
        } catch let error as LayerSpecificationError {
            throw EngineError(location, error.message)
        }
    }
}
