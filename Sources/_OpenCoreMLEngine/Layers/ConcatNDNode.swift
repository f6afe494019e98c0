import CoreMLSpec

/// Core ML's `concatND`: joins its inputs along one axis of the exact shape (negative axes count
/// from the end), in input order. All inputs have the same rank and agree on every other dimension.
///
/// With `interleave` (all inputs the same shape) the slices alternate instead: along the axis the
/// output holds input 0's slice 0, input 1's slice 0, …, input 0's slice 1, …
final class ConcatNDNode: LayerNode, @unchecked Sendable {
    let axis: Int64
    let interleave: Bool
    /// The output viewed as `[outer, Σ lengths, inner]`; `lengths[i]` is input i's size on the axis.
    private var outer = 1, inner = 1, lengths: [Int] = []

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_ConcatNDLayerParams, inputs: [Blob], outputs: [Blob]) throws {
        axis = params.axis
        interleave = params.interleave
        super.init(spec, inputs: inputs, outputs: outputs)
    }

    override func prepareForShapes() throws {
        let first = input.shape
        let resolved = try resolvedAxis(axis, of: input)
        outer = first.elementCount(of: 0..<resolved)
        inner = first.elementCount(of: (resolved + 1)..<first.rank)
        lengths = inputs.map { $0.shape.dims[resolved] }
    }

    /// Calls `body(input index, input offset, output offset, count)` for every contiguous run that
    /// moves between an input and the output, for `batch` examples.
    private func forEachRun(batch: Int, _ body: (Int, Int, Int, Int) -> Void) {
        let total = lengths.reduce(0, +)
        let blocks = batch * outer
        if interleave {
            let length = lengths[0], count = inputs.count
            for block in 0..<blocks {
                for slice in 0..<length {
                    for i in 0..<count {
                        body(i, (block * length + slice) * inner, (block * total + slice * count + i) * inner, inner)
                    }
                }
            }
            return
        }
        for block in 0..<blocks {
            var start = 0
            for (i, length) in lengths.enumerated() {
                body(i, block * length * inner, (block * total + start) * inner, length * inner)
                start += length
            }
        }
    }

    override func forward(batch: Int, training: Bool) {
        let y = output.value.pointer
        let sources = inputs.map(\.value.pointer)
        forEachRun(batch: batch) { i, from, to, count in (y + to).update(from: sources[i] + from, count: count) }
    }

    override var hasBackward: Bool { true }

    override func backward(batch: Int) {
        let dy = output.gradient.pointer
        for (i, blob) in inputs.enumerated() where blob.needsGradient {
            setGradient(of: blob, count: batch * blob.shape.count) { dx in
                forEachRun(batch: batch) { j, from, to, count in
                    guard j == i else { return }
                    (dx + from).update(from: dy + to, count: count)
                }
            }
        }
    }
}
