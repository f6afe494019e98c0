import CoreMLSpec
import Foundation
import _OpenCoreMLKernels

/// Core ML's `softmaxND`: softmax along one axis of the example's exact shape (a negative axis
/// counts from the end). The shape is unchanged.
final class SoftmaxNDNode: LayerNode, @unchecked Sendable {
    let axis: Int64
    /// The example viewed as `[outer, length, inner]` around the axis.
    private var outer = 1, length = 1, inner = 1

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_SoftmaxNDLayerParams, inputs: [Blob], outputs: [Blob]) throws {
        axis = params.axis
        super.init(spec, inputs: inputs, outputs: outputs)
    }

    override func inferShapes() throws {
        try checkSequenceBlobCounts(inputs: 1...1, outputs: 1...1)
        let shape = input.shape
        let resolved = try resolveNDAxis(axis, rank: shape.rank, of: input)
        outer = shape.elementCount(of: 0..<resolved)
        length = shape.dims[resolved]
        inner = shape.elementCount(of: (resolved + 1)..<shape.rank)
        output.shape = shape
    }

    override func forward(batch: Int, training: Bool) {
        let x = input.value.pointer, y = output.value.pointer
        let blocks = batch * outer
        if inner == 1 {
            ocm_softmax_rows(x, y, Int32(blocks), Int32(length), Int32(length), Int32(length))
            return
        }
        let (length, inner) = (self.length, self.inner)
        for block in 0..<blocks {
            let base = block * length * inner
            for position in 0..<inner {
                var largest = -Float.infinity
                for i in 0..<length { largest = max(largest, x[base + i * inner + position]) }
                var sum: Float = 0
                for i in 0..<length {
                    let e = Foundation.exp(x[base + i * inner + position] - largest)
                    y[base + i * inner + position] = e
                    sum += e
                }
                for i in 0..<length { y[base + i * inner + position] /= sum }
            }
        }
    }

    override func backward(batch: Int) {
        guard input.needsGradient else { return }
        let y = output.value.pointer, dy = output.gradient.pointer
        let (blocks, length, inner) = (batch * outer, self.length, self.inner)
        setGradient(of: input, count: batch * input.shape.count) { dx in
            // dx = y ⊙ (dy − Σ_axis dy·y) along every line of the axis.
            for block in 0..<blocks {
                let base = block * length * inner
                for position in 0..<inner {
                    var dot: Float = 0
                    for i in 0..<length { dot += dy[base + i * inner + position] * y[base + i * inner + position] }
                    for i in 0..<length {
                        let index = base + i * inner + position
                        dx[index] = y[index] * (dy[index] - dot)
                    }
                }
            }
        }
    }
}
