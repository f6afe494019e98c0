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

    override func prepareForShapes() throws {
        let classic = input.shape.classic, h = classic.height, w = classic.width
        // The layer table has checked that the window fits, so there is a geometry.
        guard let geometry = try? params.geometry(height: h, width: w) else {
            throw fail("input '\(input.name)' (\(h)×\(w)) does not fit the pooling window")
        }
        inputSize = (h, w)
        kernel = (geometry.kernelHeight, geometry.kernelWidth)
        stride = (geometry.strideHeight, geometry.strideWidth)
        padTop = geometry.padTop
        padLeft = geometry.padLeft
        outputSize = (geometry.outputHeight, geometry.outputWidth)
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

    private func planes(_ batch: Int) -> Int {
        let classic = input.shape.classic, outer = classic.outer, c = classic.channels
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
