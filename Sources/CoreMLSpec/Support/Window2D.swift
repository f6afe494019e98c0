/// Where a sliding window — a convolution's kernel or a pooling window — falls on an H×W plane:
/// its size, stride and dilation, the padding on each side and the output size. Written once for
/// both interpreters: the classic layers' parameters (`LayerGeometry.swift`, also the spec's static
/// shape table) and the ML Program `conv`/`max_pool`/`avg_pool` arguments build it through
/// ``init(height:width:kernel:stride:dilation:padding:)``.
package struct Window2D: Equatable, Sendable {
    package var inputHeight: Int, inputWidth: Int
    package var kernelHeight: Int, kernelWidth: Int
    package var strideHeight: Int, strideWidth: Int
    package var dilationHeight: Int, dilationWidth: Int
    package var padTop: Int, padBottom: Int, padLeft: Int, padRight: Int
    package var outputHeight: Int, outputWidth: Int

    /// How the padding is chosen.
    package enum Padding: Equatable, Sendable {
        /// Explicit amounts; the window must fit the padded plane, and each output is a whole step
        /// (out = ⌊(in + before + after − extent) / stride⌋ + 1). No padding is `.explicit()`.
        case explicit(top: Int = 0, bottom: Int = 0, left: Int = 0, right: Int = 0)
        /// As much padding as keeps out = ⌈in / stride⌉, split evenly with the odd row (column) at
        /// the bottom (right), or at the top (left) when `topLeftHeavy` (classic `same` with
        /// `TOP_LEFT_HEAVY`, MIL `same_lower`).
        case same(topLeftHeavy: Bool)
        /// Explicit amounts, counting a last window that starts inside the plane or its leading
        /// padding but runs past the end (out = ⌈(in + before + after − extent) / stride⌉ + 1, less one
        /// when that window would start at or past the input and half the padding): pooling's
        /// Caffe-style include-last-pixel (before = after) and MIL's `ceil_mode`. The window may
        /// be larger than the padded plane.
        case ceil(top: Int = 0, bottom: Int = 0, left: Int = 0, right: Int = 0)
    }

    /// The window of `kernel`, `stride` and `dilation` (each `(height, width)`, positive) with
    /// `padding` on a `height`×`width` plane (sizes of at most `Int32.max`, so the arithmetic stays
    /// inside an `Int`); nil when no window fits.
    package init?(height h: Int, width w: Int, kernel: (Int, Int), stride: (Int, Int), dilation: (Int, Int) = (1, 1), padding: Padding) {
        let extent = (dilation.0 * (kernel.0 - 1) + 1, dilation.1 * (kernel.1 - 1) + 1)
        var pads = (0, 0, 0, 0)
        let out: (Int, Int)
        switch padding {
        case .explicit(let top, let bottom, let left, let right):
            pads = (top, bottom, left, right)
            guard h + top + bottom >= extent.0, w + left + right >= extent.1 else { return nil }
            out = ((h + top + bottom - extent.0) / stride.0 + 1, (w + left + right - extent.1) / stride.1 + 1)
        case .same(let topLeftHeavy):
            out = ((h + stride.0 - 1) / stride.0, (w + stride.1 - 1) / stride.1)
            let total = (max(0, (out.0 - 1) * stride.0 + extent.0 - h), max(0, (out.1 - 1) * stride.1 + extent.1 - w))
            let before = topLeftHeavy ? ((total.0 + 1) / 2, (total.1 + 1) / 2) : (total.0 / 2, total.1 / 2)
            pads = (before.0, total.0 - before.0, before.1, total.1 - before.1)
        case .ceil(let top, let bottom, let left, let right):
            pads = (top, bottom, left, right)
            out = (Self.ceilCount(h, before: top, after: bottom, extent: extent.0, stride: stride.0),
                   Self.ceilCount(w, before: left, after: right, extent: extent.1, stride: stride.1))
        }
        guard out.0 > 0, out.1 > 0 else { return nil }
        (inputHeight, inputWidth) = (h, w)
        (kernelHeight, kernelWidth, strideHeight, strideWidth, dilationHeight, dilationWidth) = (kernel.0, kernel.1, stride.0, stride.1, dilation.0, dilation.1)
        (padTop, padBottom, padLeft, padRight) = pads
        (outputHeight, outputWidth) = out
    }

    /// Outputs along one axis with `.ceil` padding.
    private static func ceilCount(_ size: Int, before: Int, after: Int, extent: Int, stride: Int) -> Int {
        let span = size + before + after - extent
        let count = (span >= 0 ? (span + stride - 1) / stride : -((-span) / stride)) + 1
        // The last window must start inside the plane or its leading padding.
        return before + after > 0 && 2 * (count - 1) * stride >= 2 * size + before + after ? count - 1 : count
    }

    /// Output positions per plane.
    package var outputPlane: Int { outputHeight * outputWidth }
    /// Whether any side is padded.
    package var isPadded: Bool { padTop != 0 || padBottom != 0 || padLeft != 0 || padRight != 0 }
    /// Whether some window runs past the padded plane (only `.ceil` windows can).
    package var overrunsPadding: Bool {
        (outputHeight - 1) * strideHeight + (kernelHeight - 1) * dilationHeight + 1 > inputHeight + padTop + padBottom
            || (outputWidth - 1) * strideWidth + (kernelWidth - 1) * dilationWidth + 1 > inputWidth + padLeft + padRight
    }
}
