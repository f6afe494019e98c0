import CoreMLSpec

/// Core ML's classic `concat`: joins its inputs along the channel axis (C), or along the sequence
/// axis (`sequenceConcat`, the outer axis of each example) in input order.
///
/// Channel concatenation needs equal sequence length, height and width; sequence concatenation
/// needs equal C, H and W. Backward splits the output gradient back into the inputs.
final class ConcatNode: LayerNode, @unchecked Sendable {
    let alongSequence: Bool

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_ConcatLayerParams, inputs: [Blob], outputs: [Blob]) throws {
        alongSequence = params.sequenceConcat
        super.init(spec, inputs: inputs, outputs: outputs)
    }

    /// Each input's values per block (a sequence position, or a whole example) and the blocks.
    private func layout(batch: Int) -> (blocks: Int, sizes: [Int]) {
        if alongSequence { return (batch, inputs.map(\.shape.count)) }
        let outer = input.shape.classic.outer
        return (batch * outer, inputs.map { $0.shape.classic.count / max(outer, 1) })
    }

    override func forward(batch: Int, training: Bool) {
        let (blocks, sizes) = layout(batch: batch)
        let total = sizes.reduce(0, +)
        let y = output.value.pointer
        var offset = 0
        for (input, size) in zip(inputs, sizes) {
            let x = input.value.pointer
            for block in 0..<blocks { (y + block * total + offset).update(from: x + block * size, count: size) }
            offset += size
        }
    }

    override var hasBackward: Bool { true }

    override func backward(batch: Int) {
        let (blocks, sizes) = layout(batch: batch)
        let total = sizes.reduce(0, +)
        let dy = output.gradient.pointer
        var offset = 0
        for (input, size) in zip(inputs, sizes) {
            defer { offset += size }
            guard input.needsGradient else { continue }
            let start = offset
            setGradient(of: input, count: blocks * size) { dx in
                for block in 0..<blocks { (dx + block * size).update(from: dy + block * total + start, count: size) }
            }
        }
    }
}
