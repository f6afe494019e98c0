import CoreMLSpec
import Foundation
import _OpenCoreMLKernels

/// Max, average and L2 pooling over each channel plane, windowed or global, with Core ML's three
/// padding modes (valid with explicit amounts, same, and Caffe-style include-last-pixel).
final class PoolingNode: LayerNode, @unchecked Sendable {
    let type: CoreML_Specification_PoolingLayerParams.PoolingType
    let isGlobal: Bool
    let excludePadding: Bool
    let params: CoreML_Specification_PoolingLayerParams

    private(set) var kernel = (h: 1, w: 1), stride = (h: 1, w: 1)
    private(set) var inputSize = (h: 0, w: 0), outputSize = (h: 0, w: 0)
    private(set) var padTop = 0, padLeft = 0
    private let argmax = Int32Buffer()

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_PoolingLayerParams, inputs: [Blob], outputs: [Blob]) {
        type = params.type
        isGlobal = params.globalPooling
        excludePadding = params.avgPoolExcludePadding
        self.params = params
        super.init(spec, inputs: inputs, outputs: outputs)
    }

    override func inferShapes() throws {
        let (outer, c, h, w) = input.shape.classic
        inputSize = (h, w)
        if isGlobal {
            kernel = (h, w); stride = (1, 1); outputSize = (1, 1); padTop = 0; padLeft = 0
            output.shape = .classic(outer: outer, channels: c, height: 1, width: 1)
            return
        }
        let sizes = params.kernelSize.count == 2 ? params.kernelSize.map(Int.init) : [3, 3]
        let strides = params.stride.count == 2 ? params.stride.map(Int.init) : [1, 1]
        kernel = (sizes[0], sizes[1])
        stride = (max(1, strides[0]), max(1, strides[1]))
        var outH: Int, outW: Int
        padTop = 0; padLeft = 0
        switch params.poolingPaddingType {
        case .valid(let valid)?:
            var bottom = 0, right = 0
            let amounts = valid.paddingAmounts.borderAmounts
            if amounts.count == 2 {
                padTop = Int(amounts[0].startEdgeSize); bottom = Int(amounts[0].endEdgeSize)
                padLeft = Int(amounts[1].startEdgeSize); right = Int(amounts[1].endEdgeSize)
            }
            outH = (h + padTop + bottom - kernel.h) / stride.h + 1
            outW = (w + padLeft + right - kernel.w) / stride.w + 1
        case .same(let same)?:
            outH = (h + stride.h - 1) / stride.h
            outW = (w + stride.w - 1) / stride.w
            let totalH = max(0, (outH - 1) * stride.h + kernel.h - h), totalW = max(0, (outW - 1) * stride.w + kernel.w - w)
            let heavy = same.asymmetryMode == .topLeftHeavy
            padTop = heavy ? (totalH + 1) / 2 : totalH / 2
            padLeft = heavy ? (totalW + 1) / 2 : totalW / 2
        case .includeLastPixel(let last)?:
            let amounts = last.paddingAmounts.map(Int.init)
            padTop = amounts.count == 2 ? amounts[0] : 0
            padLeft = amounts.count == 2 ? amounts[1] : 0
            outH = Self.ceilDivide(h + 2 * padTop - kernel.h, stride.h) + 1
            outW = Self.ceilDivide(w + 2 * padLeft - kernel.w, stride.w) + 1
            // The last window must start inside the image or its top/left padding.
            if padTop > 0, (outH - 1) * stride.h >= h + padTop { outH -= 1 }
            if padLeft > 0, (outW - 1) * stride.w >= w + padLeft { outW -= 1 }
        case nil:
            // Core ML's default padding mode is include-last-pixel with no padding.
            outH = Self.ceilDivide(h - kernel.h, stride.h) + 1
            outW = Self.ceilDivide(w - kernel.w, stride.w) + 1
        }
        guard outH > 0, outW > 0 else {
            throw fail("input '\(input.name)' (\(h)×\(w)) is smaller than the \(kernel.h)×\(kernel.w) window")
        }
        outputSize = (outH, outW)
        output.shape = .classic(outer: outer, channels: c, height: outH, width: outW)
    }

    /// Whether a convolution before this layer can run it (windowed max pooling), through
    /// `ocm_maxpool2d` with this layer's window, strides, padding and output size.
    var fusesAsMaxPooling: Bool { type == .max && !isGlobal }

    /// Whether this is max pooling with a 2×2 window, stride 2 and no padding, whose backward
    /// `ocm_maxpool2x2_backward` computes without a scatter.
    var isMaxPooling2x2: Bool {
        fusesAsMaxPooling && kernel == (2, 2) && stride == (2, 2) && padTop == 0 && padLeft == 0
            && 2 * outputSize.h <= inputSize.h && 2 * outputSize.w <= inputSize.w
    }

    private static func ceilDivide(_ a: Int, _ b: Int) -> Int { a >= 0 ? (a + b - 1) / b : -((-a) / b) }

    private func planes(_ batch: Int) -> Int {
        let (outer, c, _, _) = input.shape.classic
        return batch * outer * c
    }

    override func reserve(batch: Int, training: Bool) {
        if type == .max { argmax.reserve(batch * output.shape.count) }
    }

    override func forward(batch: Int, training: Bool) {
        let planes = Int32(planes(batch))
        let x = input.value.pointer, y = output.value.pointer
        let (h, w) = (Int32(inputSize.h), Int32(inputSize.w))
        switch type {
        case .max:
            if isGlobal {
                ocm_global_maxpool(x, y, argmax.pointer, planes, h * w)
            } else {
                ocm_maxpool2d(x, y, argmax.pointer, planes, h, w, Int32(kernel.h), Int32(kernel.w), Int32(stride.h), Int32(stride.w),
                              Int32(padTop), Int32(padLeft), Int32(outputSize.h), Int32(outputSize.w))
            }
        case .average:
            if isGlobal {
                ocm_global_avgpool(x, y, planes, h * w)
            } else {
                ocm_avgpool2d(x, y, planes, h, w, Int32(kernel.h), Int32(kernel.w), Int32(stride.h), Int32(stride.w),
                              Int32(padTop), Int32(padLeft), Int32(outputSize.h), Int32(outputSize.w), excludePadding)
            }
        case .l2, .UNRECOGNIZED:
            forEachWindow(planes: Int(planes)) { plane, out, inputs in
                var sum: Float = 0
                for index in inputs { sum += x[plane + index] * x[plane + index] }
                y[out] = sum.squareRoot()
            }
        }
    }

    override func backward(batch: Int) {
        guard input.needsGradient else { return }
        let planes = Int32(planes(batch))
        let dy = output.gradient.pointer
        let (h, w) = (Int32(inputSize.h), Int32(inputSize.w))
        let accumulate = input.gradientWritten
        let dx = input.gradient.pointer
        switch type {
        case .max where isMaxPooling2x2 && !accumulate:
            ocm_maxpool2x2_backward(dy, nil, argmax.pointer, dx, planes, h, w, Int32(outputSize.h), Int32(outputSize.w))
        case .max:
            ocm_maxpool2d_backward(dy, argmax.pointer, dx, planes, h, w, Int32(outputSize.h), Int32(outputSize.w), accumulate)
        case .average:
            if isGlobal {
                ocm_global_avgpool_backward(dy, dx, planes, h * w, accumulate)
            } else {
                ocm_avgpool2d_backward(dy, dx, planes, h, w, Int32(kernel.h), Int32(kernel.w), Int32(stride.h), Int32(stride.w),
                                       Int32(padTop), Int32(padLeft), Int32(outputSize.h), Int32(outputSize.w), excludePadding, accumulate)
            }
        case .l2, .UNRECOGNIZED:
            if !accumulate { dx.update(repeating: 0, count: Int(planes) * inputSize.h * inputSize.w) }
            let x = input.value.pointer, y = output.value.pointer
            forEachWindow(planes: Int(planes)) { plane, out, inputs in
                guard y[out] > 0 else { return }
                for index in inputs { dx[plane + index] += dy[out] * x[plane + index] / y[out] }
            }
        }
        input.gradientWritten = true
    }

    /// Calls `body(planeOffset, outputIndex, inputIndicesInPlane)` for every window (L2 pooling).
    private func forEachWindow(planes: Int, _ body: (Int, Int, [Int]) -> Void) {
        let (h, w) = inputSize, (outH, outW) = outputSize
        var indices: [Int] = []
        for p in 0..<planes {
            for oh in 0..<outH {
                for ow in 0..<outW {
                    indices.removeAll(keepingCapacity: true)
                    for i in 0..<kernel.h {
                        let r = oh * stride.h + i - padTop
                        guard r >= 0, r < h else { continue }
                        for j in 0..<kernel.w {
                            let col = ow * stride.w + j - padLeft
                            if col >= 0, col < w { indices.append(r * w + col) }
                        }
                    }
                    body(p * h * w, (p * outH + oh) * outW + ow, indices)
                }
            }
        }
    }
}
