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
        if inputs.isEmpty { throw fail("concat needs at least one input") }
    }

    override func inferShapes() throws {
        let dims = inputs.map { ClassicDims($0.shape) }
        var result = dims[0]
        for (input, d) in zip(inputs, dims).dropFirst() {
            if alongSequence {
                guard d.channels == result.channels, d.height == result.height, d.width == result.width else {
                    throw fail("sequence concat needs equal C×H×W, but '\(inputs[0].name)' is \(dims[0].channels)×\(dims[0].height)×\(dims[0].width) and '\(input.name)' is \(d.channels)×\(d.height)×\(d.width)")
                }
                result.outer += d.outer
            } else {
                guard d.outer == result.outer, d.height == result.height, d.width == result.width else {
                    throw fail("channel concat needs equal sequence length, height and width, but '\(inputs[0].name)' is \(dims[0]) and '\(input.name)' is \(d) [outer×C×H×W]")
                }
                result.channels += d.channels
            }
        }
        output.shape = inputs[0].shape.replacingClassicDims(with: result)
    }

    /// Each input's values per block (a sequence position, or a whole example) and the blocks.
    private func layout(batch: Int) -> (blocks: Int, sizes: [Int]) {
        if alongSequence { return (batch, inputs.map(\.shape.count)) }
        let outer = ClassicDims(input.shape).outer
        return (batch * outer, inputs.map { ClassicDims($0.shape).count / max(outer, 1) })
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
