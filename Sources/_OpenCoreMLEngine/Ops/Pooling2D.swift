import CoreMLSpec
import _OpenCoreMLKernels

/// 2-D pooling over planes of H×W, written once for both interpreters: classic pooling layers
/// (max, average, L2; windowed or global) and the ML Program `max_pool`, `avg_pool` and `l2_pool`.
///
/// Padding never wins a max (a window wholly in the padding gives 0). An average divides by the
/// window's in-plane inputs when it excludes the padding (classic `avgPoolExcludePadding`, MIL
/// `exclude_padding_from_average`), else by kh·kw, the padding counting as zeros (PyTorch's
/// `count_include_pad`).
struct Pooling2D: Sendable {
    enum Kind: Equatable, Sendable {
        case max
        case average(excludePadding: Bool)
        /// The square root of the window's sum of squares (the padding adds nothing).
        case l2
    }

    let kind: Kind
    let window: Window2D
    /// One window over each whole plane (`ocm_global_maxpool` / `ocm_global_avgpool`).
    let isGlobal: Bool

    init(_ kind: Kind, window: Window2D, isGlobal: Bool = false) {
        (self.kind, self.window, self.isGlobal) = (kind, window, isGlobal)
    }

    /// Whether the backward pass of max pooling can run without a scatter (`ocm_maxpool2x2_backward`):
    /// a 2×2 window, stride 2, no padding.
    var isMaxPooling2x2: Bool {
        kind == .max && !isGlobal && window.kernelHeight == 2 && window.kernelWidth == 2 && window.strideHeight == 2 && window.strideWidth == 2
            && window.padTop == 0 && window.padLeft == 0
            && 2 * window.outputHeight <= window.inputHeight && 2 * window.outputWidth <= window.inputWidth
    }

    /// `planes` planes from `x` into `y`; max pooling writes each winner's index in its plane to
    /// `argmax` (planes × outputs) when given.
    func forward(_ x: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>, planes: Int, argmax: UnsafeMutablePointer<Int32>? = nil) {
        let w = window
        let (h, width) = (Int32(w.inputHeight), Int32(w.inputWidth))
        switch kind {
        case .max where isGlobal: ocm_global_maxpool(x, y, argmax, Int32(planes), h * width)
        case .max:
            ocm_maxpool2d(x, y, argmax, Int32(planes), h, width, Int32(w.kernelHeight), Int32(w.kernelWidth), Int32(w.strideHeight),
                          Int32(w.strideWidth), Int32(w.padTop), Int32(w.padLeft), Int32(w.outputHeight), Int32(w.outputWidth))
        case .average where isGlobal: ocm_global_avgpool(x, y, Int32(planes), h * width)
        case .average(let excludePadding):
            ocm_avgpool2d(x, y, Int32(planes), h, width, Int32(w.kernelHeight), Int32(w.kernelWidth), Int32(w.strideHeight),
                          Int32(w.strideWidth), Int32(w.padTop), Int32(w.padLeft), Int32(w.outputHeight), Int32(w.outputWidth), excludePadding)
        case .l2:
            forEachWindow(planes: planes) { plane, out, inputs in
                var sum: Float = 0
                for index in inputs { sum += x[plane + index] * x[plane + index] }
                y[out] = sum.squareRoot()
            }
        }
    }

    /// The gradient `dx` (planes × H × W; added into when `accumulate`, else overwritten) from the
    /// output gradient `dy`; max pooling reads the forward pass's `argmax`, L2 pooling its input
    /// `x` and output `y`.
    func backward(_ dy: UnsafePointer<Float>, into dx: UnsafeMutablePointer<Float>, planes: Int, accumulate: Bool,
                  argmax: UnsafePointer<Int32>?, x: UnsafePointer<Float>, y: UnsafePointer<Float>) {
        let w = window
        let (h, width, outH, outW) = (Int32(w.inputHeight), Int32(w.inputWidth), Int32(w.outputHeight), Int32(w.outputWidth))
        switch kind {
        case .max where isMaxPooling2x2 && !accumulate:
            ocm_maxpool2x2_backward(dy, nil, argmax, dx, Int32(planes), h, width, outH, outW)
        case .max:
            ocm_maxpool2d_backward(dy, argmax, dx, Int32(planes), h, width, outH, outW, accumulate)
        case .average where isGlobal:
            ocm_global_avgpool_backward(dy, dx, Int32(planes), h * width, accumulate)
        case .average(let excludePadding):
            ocm_avgpool2d_backward(dy, dx, Int32(planes), h, width, Int32(w.kernelHeight), Int32(w.kernelWidth), Int32(w.strideHeight),
                                   Int32(w.strideWidth), Int32(w.padTop), Int32(w.padLeft), outH, outW, excludePadding, accumulate)
        case .l2:
            if !accumulate { dx.update(repeating: 0, count: planes * w.inputHeight * w.inputWidth) }
            forEachWindow(planes: planes) { plane, out, inputs in
                guard y[out] > 0 else { return }
                for index in inputs { dx[plane + index] += dy[out] * x[plane + index] / y[out] }
            }
        }
    }

    /// Calls `body(planeOffset, outputIndex, inputIndicesInPlane)` for every window (L2 pooling).
    private func forEachWindow(planes: Int, _ body: (Int, Int, [Int]) -> Void) {
        let w = window
        var indices: [Int] = []
        for p in 0..<planes {
            for oh in 0..<w.outputHeight {
                for ow in 0..<w.outputWidth {
                    indices.removeAll(keepingCapacity: true)
                    for i in 0..<w.kernelHeight {
                        let r = oh * w.strideHeight + i - w.padTop
                        guard r >= 0, r < w.inputHeight else { continue }
                        for j in 0..<w.kernelWidth {
                            let col = ow * w.strideWidth + j - w.padLeft
                            if col >= 0, col < w.inputWidth { indices.append(r * w.inputWidth + col) }
                        }
                    }
                    body(p * w.inputHeight * w.inputWidth, (p * w.outputHeight + oh) * w.outputWidth + ow, indices)
                }
            }
        }
    }
}
