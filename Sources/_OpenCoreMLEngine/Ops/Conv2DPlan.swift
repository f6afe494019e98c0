import CoreMLSpec
import _OpenCoreMLKernels

/// A 2-D convolution over N×C×H×W images, written once for both interpreters: the classic
/// convolution layer and the ML Program `conv` are adapters from their parameters onto it.
///
/// The plan knows the layer's sizes (``Layout``) and, for weights that never change, prepares them
/// once: transformed for Winograd (``WinogradConvolution``) or packed for the GEMM kernel
/// (``PackedWeights``). Each forward pass is given the ``Window2D`` of the current input (its
/// sizes may change from run to run) and chooses a path (``Path``): depthwise (a C kernel per
/// plane), Winograd F(2×2, 3×3), one GEMM over the batch when each image has one output position,
/// a pointwise GEMM straight on the input, or im2col and one GEMM per group, in bands of output
/// rows when the columns outgrow the cache. The bias and the fused activation run in the GEMM's
/// epilogue (`ocm_gemm_epilogue`, supplied by the adapter), in the depthwise kernel (which takes
/// the same epilogue) or in the Winograd kernel's clamp.
///
/// Training passes (``forward(_:)`` with `training`) take the general paths only, with the
/// weights as they are now, so the fast paths can be checked against them.
final class Conv2DPlan: @unchecked Sendable {
    /// The sizes a convolution declares.
    struct Layout: Sendable {
        var outChannels: Int
        /// Input channels per group (a classic layer's `kernelChannels`, the weight's dimension 1).
        var inPerGroup: Int
        var groups: Int
        var kernel: (h: Int, w: Int)
        var stride: (h: Int, w: Int)
        var dilation: (h: Int, w: Int)

        var inChannels: Int { inPerGroup * groups }
        var outPerGroup: Int { outChannels / groups }
        /// Rows of one group's unfolded columns: `inPerGroup × kh × kw`.
        var patch: Int { inPerGroup * kernel.h * kernel.w }
        /// One input and one output channel per group (MobileNet's and EfficientNet's depthwise layers).
        var isDepthwise: Bool { inPerGroup == 1 && outPerGroup == 1 }
        var weightCount: Int { outChannels * patch }
    }

    /// How one forward pass runs.
    enum Path {
        /// Each plane convolved with its own kernel by `ocm_depthwise_conv2d` (inference).
        case depthwise
        /// Winograd F(2×2, 3×3) with the weights transformed once (inference, constant weights).
        case winograd(WinogradConvolution)
        /// Each image gives one position through one group (a kernel covering the unpadded input, or
        /// 1×1 on a 1×1 plane): the batch is one GEMM, `Y (images × out) = X (images × patch) · Wᵀ`.
        case singlePosition
        /// A 1×1 kernel with stride 1 and no padding (or one kernel position covering the
        /// unpadded input): each image's channels are the columns as they are.
        case pointwise
        /// im2col and one GEMM per group, output rows `bandRows` at a time.
        case im2col(bandRows: Int)
    }

    let layout: Layout
    /// The weights' Winograd transform, when Winograd applies and the weights are constant.
    private let winograd: WinogradConvolution?
    /// The weights packed for the GEMM, when constant (and neither depthwise nor Winograd).
    private let packed: PackedWeights?

    /// A plan for `layout`; `constantWeights` (`outChannels × inPerGroup × kh × kw`) are
    /// prepared once, nil for weights that train (each pass is then given them).
    init(_ layout: Layout, constantWeights: UnsafeBufferPointer<Float>?) {
        self.layout = layout
        guard let weights = constantWeights?.baseAddress, constantWeights?.count == layout.weightCount else {
            (winograd, packed) = (nil, nil)
            return
        }
        if WinogradConvolution.applies(kernel: layout.kernel, groups: layout.groups, stride: layout.stride, dilation: layout.dilation,
                                       inChannels: layout.inPerGroup, outChannels: layout.outChannels) {
            (winograd, packed) = (WinogradConvolution(weights: weights, outChannels: layout.outChannels, inChannels: layout.inPerGroup), nil)
        } else if layout.isDepthwise {
            (winograd, packed) = (nil, nil)
        } else {
            winograd = nil
            packed = PackedWeights(Array(UnsafeBufferPointer(start: weights, count: layout.weightCount)), groups: layout.groups,
                                   rows: layout.outPerGroup, columns: layout.patch)
        }
    }

    /// Whether `window` reads each image's channels as its columns (no unfolding).
    func isPointwise(_ window: Window2D) -> Bool {
        guard !window.isPadded else { return false }
        return (layout.kernel == (1, 1) && layout.stride == (1, 1))
            || (layout.kernel == (window.inputHeight, window.inputWidth) && layout.dilation == (1, 1))
    }

    /// The path a pass over `images` images of `window` takes; `perImage` when each image's output
    /// goes through the caller (a fused pooling), which the whole-batch paths cannot do.
    func path(_ window: Window2D, images: Int, training: Bool, perImage: Bool = false, threads: Int = kernelThreadCount) -> Path {
        if !training, !perImage, layout.isDepthwise { return .depthwise }
        if !training, let winograd { return .winograd(winograd) }
        let pointwise = isPointwise(window)
        // With packed weights, one image's product reads them packed as it is.
        if pointwise, !perImage, window.outputPlane == 1, layout.groups == 1, images > 1 || training || packed == nil { return .singlePosition }
        if pointwise { return .pointwise }
        return .im2col(bandRows: Self.bandRows(rows: layout.patch, outH: window.outputHeight, outW: window.outputWidth, threads: threads))
    }

    /// The path `pass` takes.
    func path(_ pass: Pass) -> Path {
        path(pass.window, images: pass.images, training: pass.training, perImage: pass.perImage != nil, threads: pass.threads)
    }

    /// Output rows per band of a convolution's unfolded columns: all of them (one band, unfolded and
    /// multiplied by all threads) unless the columns outgrow a quarter of the L2 cache (256 KB) four
    /// times over; then bands of about that size, at least 512 positions wide, when there are two
    /// or more per thread (of `threads`).
    static func bandRows(rows: Int, outH: Int, outW: Int, threads: Int = kernelThreadCount) -> Int {
        let budget = 1 << 16
        guard rows * outH * outW > 4 * budget else { return outH }
        let band = max((512 + outW - 1) / outW, budget / max(rows * outW, 1))
        return (outH + band - 1) / band >= 2 * threads ? band : outH
    }

    /// One forward pass: what it reads and writes.
    struct Pass {
        /// `images` images of `layout.inChannels × window.inputHeight × window.inputWidth`.
        var x: UnsafePointer<Float>
        /// `images` outputs of `layout.outChannels × window.outputHeight × window.outputWidth`.
        var y: UnsafeMutablePointer<Float>
        var images: Int
        var window: Window2D
        /// The weights as they are now (`outChannels × inPerGroup × kh × kw`).
        var weights: UnsafePointer<Float>
        /// What runs on each finished block of output: its `row_bias` (one value per output
        /// channel, or nil) and activation (none, a ReLU or a clamp).
        var epilogue: ocm_gemm_epilogue
        var training = false
        /// Whether the batch's images go to the threads (each image's product then runs on one
        /// thread): the classic layer's way, whose training pass keeps per-thread scratch per
        /// image. Otherwise images run one after another and each spreads its bands (or its
        /// products) over the threads, an ML Program's way.
        var imagesAcrossThreads = false
        /// When set, image i's output goes to `perImage.output + slot × outChannels × outputPlane`
        /// (slot < ``scratchSlots(_:)``) instead of into `y`, and `perImage.finish(image, output)`
        /// runs right after it, while it is in cache (a classic layer's fused pooling).
        var perImage: (output: UnsafeMutablePointer<Float>, finish: (_ image: Int, _ output: UnsafePointer<Float>) -> Void)? = nil
        /// The threads the pass may use, read once (the count may change from another thread):
        /// every choice and every scratch size follows from it.
        var threads = kernelThreadCount
    }

    /// The per-thread scratch slots a pass needs (at the current thread count, which a pass reads
    /// once: it runs on at most this many threads).
    func scratchSlots(_ pass: Pass) -> Int {
        switch path(pass) {
        case .depthwise, .singlePosition: return 1
        case .winograd, .pointwise: return spreadsImages(pass) ? Self.slots(pass.images, pass.threads) : 1
        case .im2col(let band):
            if spreadsImages(pass) { return Self.slots(pass.images, pass.threads) }
            let bands = (pass.window.outputHeight + band - 1) / band
            return bands > 1 ? Self.slots(bands, pass.threads) : 1
        }
    }

    /// Scratch floats per slot.
    func scratchFloatsPerSlot(_ pass: Pass) -> Int {
        switch path(pass) {
        case .depthwise, .singlePosition, .pointwise: return 0
        case .winograd(let winograd): return winograd.scratchFloats(outH: pass.window.outputHeight, outW: pass.window.outputWidth)
        case .im2col(let band):
            let rows = spreadsImages(pass) ? pass.window.outputHeight : band
            return layout.patch * rows * pass.window.outputWidth
        }
    }

    /// Whether the pass's images go to the threads: when it asks and has as many images as threads.
    private func spreadsImages(_ pass: Pass) -> Bool { pass.imagesAcrossThreads && pass.images >= pass.threads }

    /// Scratch slots for `count` items on `threads` threads.
    private static func slots(_ count: Int, _ threads: Int) -> Int { max(1, min(threads, count)) }

    /// The scratch floats a pass needs: ``scratchSlots(_:)`` × ``scratchFloatsPerSlot(_:)``.
    func scratchFloats(_ pass: Pass) -> Int { scratchSlots(pass) * scratchFloatsPerSlot(pass) }

    /// Runs `pass` with `scratch` of at least ``scratchFloats(_:)`` floats (taken at the same
    /// thread count).
    func forward(_ pass: Pass, scratch: UnsafeMutablePointer<Float>?) {
        let window = pass.window
        switch path(pass) {
        case .depthwise:
            ocm_depthwise_conv2d(pass.x, pass.y, pass.weights, Int32(pass.images * layout.outChannels), Int32(layout.outChannels),
                                 Int32(window.inputHeight), Int32(window.inputWidth), Int32(window.outputHeight), Int32(window.outputWidth),
                                 Int32(layout.kernel.h), Int32(layout.kernel.w), Int32(layout.stride.h), Int32(layout.stride.w),
                                 Int32(layout.dilation.h), Int32(layout.dilation.w), Int32(window.padTop), Int32(window.padLeft), pass.epilogue)
        case .singlePosition:
            var epilogue = pass.epilogue
            (epilogue.col_bias, epilogue.row_bias) = (epilogue.row_bias, nil)
            ocm_sgemm_epilogue(false, true, Int32(pass.images), Int32(layout.outChannels), Int32(layout.patch), 1, pass.x, Int32(layout.patch),
                               pass.weights, Int32(layout.patch), 0, pass.y, Int32(layout.outChannels), epilogue)
        case .winograd(let winograd):
            let floats = scratchFloatsPerSlot(pass)
            eachImage(pass) { image, slot, out in
                let x = pass.x + image * layout.inChannels * window.inputHeight * window.inputWidth
                winograd.convolve(x, into: out, height: window.inputHeight, width: window.inputWidth, padTop: window.padTop, padLeft: window.padLeft,
                                  outH: window.outputHeight, outW: window.outputWidth, bias: pass.epilogue.row_bias,
                                  clampedTo: Self.bounds(pass.epilogue), scratch: scratch.unsafelyUnwrapped + slot * floats)
                // A ReLU makes NaN 0 (as `ocm_relu`), which a clamp would not; hardswish is no clamp.
                let count = layout.outChannels * window.outputPlane, epilogue = pass.epilogue
                if epilogue.activation == OCM_EPILOGUE_RELU { ocm_relu(out, out, count) }
                if epilogue.activation == OCM_EPILOGUE_HARDSWISH { ocm_hardswish(out, out, count, epilogue.lo, epilogue.alpha, epilogue.beta) }
            }
        case .pointwise:
            eachImage(pass) { image, _, out in
                for group in 0..<layout.groups {
                    multiply(pass, group: group, columns: groupInput(pass.x, image: image, group: group, window), width: window.outputPlane,
                             into: out + group * layout.outPerGroup * window.outputPlane)
                }
            }
        case .im2col(let band):
            let floats = scratchFloatsPerSlot(pass)
            if spreadsImages(pass) {
                // Each image on one thread, unfolded whole into that thread's columns.
                eachImage(pass) { image, slot, out in
                    for group in 0..<layout.groups {
                        let columns = scratch.unsafelyUnwrapped + slot * floats
                        unfold(groupInput(pass.x, image: image, group: group, window), window, rows: 0..<window.outputHeight, into: columns)
                        multiply(pass, group: group, columns: columns, width: window.outputPlane, into: out + group * layout.outPerGroup * window.outputPlane)
                    }
                }
                return
            }
            let bands = (window.outputHeight + band - 1) / band
            eachImage(pass) { image, _, out in
                for group in 0..<layout.groups {
                    let input = groupInput(pass.x, image: image, group: group, window)
                    let product = out + group * layout.outPerGroup * window.outputPlane
                    /// Unfolds band `index` into `thread`'s columns and multiplies them.
                    func run(band index: Int, thread: Int) {
                        let rows = (index * band)..<min(window.outputHeight, (index + 1) * band)
                        let columns = scratch.unsafelyUnwrapped + thread * floats
                        unfold(input, window, rows: rows, into: columns)
                        multiply(pass, group: group, columns: columns, width: rows.count * window.outputWidth,
                                 into: product + rows.lowerBound * window.outputWidth)
                    }
                    // One band: the unfolding and the product each use every thread.
                    if bands == 1 { run(band: 0, thread: 0) } else { parallelForEach(bands, slots: scratchSlots(pass)) { run(band: $1, thread: $0) } }
                }
            }
        }
    }

    /// The bounds the Winograd kernel, which clamps its own output, applies for `epilogue`'s
    /// activation (a ReLU's are 0 and infinity; Winograd then runs the ReLU itself, for NaN, and a
    /// hardswish after the clamp-free store).
    static func bounds(_ epilogue: ocm_gemm_epilogue) -> (lower: Float, upper: Float) {
        switch epilogue.activation {
        case OCM_EPILOGUE_CLAMP: return (epilogue.lo, epilogue.hi)
        case OCM_EPILOGUE_RELU: return (0, .infinity)
        default: return (-.infinity, .infinity)
        }
    }

    /// Runs `body(image, slot, output)` for every image: spread over the threads (slot < the
    /// pass's slots) or one after another on slot 0 (see ``Pass/imagesAcrossThreads``); `output`
    /// is the image's output (or its per-image scratch, finished after `body`).
    private func eachImage(_ pass: Pass, _ body: (_ image: Int, _ slot: Int, _ output: UnsafeMutablePointer<Float>) -> Void) {
        let size = layout.outChannels * pass.window.outputPlane
        func run(_ slot: Int, _ image: Int) {
            if let perImage = pass.perImage {
                let output = perImage.output + slot * size
                body(image, slot, output)
                perImage.finish(image, output)
            } else {
                body(image, slot, pass.y + image * size)
            }
        }
        // Few images: one thread walks them and each product uses the thread pool instead.
        if spreadsImages(pass) {
            parallelForEach(pass.images, slots: scratchSlots(pass), run)
        } else {
            for image in 0..<pass.images { run(0, image) }
        }
    }

    /// Group `group`'s channels of image `image` (`inPerGroup` planes of the window's input).
    func groupInput(_ base: UnsafePointer<Float>, image: Int, group: Int, _ window: Window2D) -> UnsafePointer<Float> {
        let offset: Int = (image * layout.inChannels + group * layout.inPerGroup) * window.inputHeight * window.inputWidth
        return base + offset
    }

    /// Unfolds output rows `rows` of one group's input into `columns` (`patch × rows.count·outW`).
    func unfold(_ input: UnsafePointer<Float>, _ window: Window2D, rows: Range<Int>, into columns: UnsafeMutablePointer<Float>) {
        ocm_im2col_rows(input, Int32(layout.inPerGroup), Int32(window.inputHeight), Int32(window.inputWidth), Int32(layout.kernel.h), Int32(layout.kernel.w),
                        Int32(layout.stride.h), Int32(layout.stride.w), Int32(layout.dilation.h), Int32(layout.dilation.w),
                        Int32(window.padTop), Int32(window.padLeft), Int32(window.outputHeight), Int32(window.outputWidth),
                        Int32(rows.lowerBound), Int32(rows.upperBound), columns)
    }

    /// Group `group`'s weights times `columns` (`patch × width`) into `target` (rows an output
    /// plane apart), with the pass's epilogue (the group's part of the bias).
    private func multiply(_ pass: Pass, group: Int, columns: UnsafePointer<Float>, width: Int, into target: UnsafeMutablePointer<Float>) {
        var epilogue = pass.epilogue
        epilogue.row_bias = epilogue.row_bias.map { $0 + group * layout.outPerGroup }
        let (m, k, plane) = (Int32(layout.outPerGroup), Int32(layout.patch), Int32(pass.window.outputPlane))
        if !pass.training, let packed {
            let done: Bool = packed.withPacked { weights in
                guard let weights else { return false }
                ocm_sgemm_prepacked(packed.isa, weights + group * packed.stride, false, m, Int32(width), k, 1, columns, Int32(width), 0,
                                    target, plane, epilogue)
                return true
            }
            if done { return }
        }
        ocm_sgemm_epilogue(false, false, m, Int32(width), k, 1, pass.weights + group * layout.outPerGroup * layout.patch, k, columns, Int32(width), 0,
                           target, plane, epilogue)
    }
}
