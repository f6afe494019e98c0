import CoreMLSpec

/// Core ML's classic `padding`: pads H and W of every channel plane by `paddingAmounts`
/// (`[top/bottom, left/right]` edge sizes), with a constant, the reflection of the border (the
/// edge value itself not repeated) or its replication.
///
/// Backward crops the gradient for constant padding; for reflection and replication the
/// gradient of every padded position is added back into the input position it copied.
final class PaddingNode: LayerNode, @unchecked Sendable {
    enum Mode: Equatable { case constant(Float), reflection, replication }

    let mode: Mode
    let top: Int, bottom: Int, left: Int, right: Int
    /// For each output row (column), the input row (column) it copies, or −1 for a constant.
    private var rowSource: [Int] = [], columnSource: [Int] = []

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_PaddingLayerParams, inputs: [Blob], outputs: [Blob]) throws {
        switch params.paddingType {
        case .constant(let constant)?: mode = .constant(constant.value)
        case .reflection?: mode = .reflection
        case .replication?: mode = .replication
        case nil: mode = .constant(0)
        }
        let amounts = params.paddingAmounts.borderAmounts
        let sizes = amounts.count == 2
            ? try [amounts[0].startEdgeSize, amounts[0].endEdgeSize, amounts[1].startEdgeSize, amounts[1].endEdgeSize].map { try Self.declaredSize($0, "paddingAmounts", of: spec) }
            : [0, 0, 0, 0]
        (top, bottom, left, right) = (sizes[0], sizes[1], sizes[2], sizes[3])
        super.init(spec, inputs: inputs, outputs: outputs)
    }

    override func prepareForShapes() throws {
        let dims = input.shape.classic
        let (h, w) = (dims.height, dims.width)
        rowSource = (0..<(h + top + bottom)).map { source($0 - top, size: h) }
        columnSource = (0..<(w + left + right)).map { source($0 - left, size: w) }
    }

    /// The input index copied to position `index` (relative to the input's start), or −1.
    private func source(_ index: Int, size: Int) -> Int {
        if index >= 0 && index < size { return index }
        switch mode {
        case .constant: return -1
        case .replication: return index < 0 ? 0 : size - 1
        case .reflection: return index < 0 ? -index : 2 * (size - 1) - index
        }
    }

    private func planes(_ batch: Int) -> Int {
        let dims = input.shape.classic
        return batch * dims.outer * dims.channels
    }

    override func forward(batch: Int, training: Bool) {
        let x = input.value.pointer, y = output.value.pointer
        let dims = input.shape.classic
        let inPlane = dims.plane, outWidth = columnSource.count, outPlane = rowSource.count * outWidth
        let fill: Float = if case .constant(let value) = mode { value } else { 0 }
        for plane in 0..<planes(batch) {
            let source = x + plane * inPlane, target = y + plane * outPlane
            for (row, sourceRow) in rowSource.enumerated() {
                let out = target + row * outWidth
                guard sourceRow >= 0 else {
                    out.update(repeating: fill, count: outWidth)
                    continue
                }
                let line = source + sourceRow * dims.width
                for (column, sourceColumn) in columnSource.enumerated() {
                    out[column] = sourceColumn >= 0 ? line[sourceColumn] : fill
                }
            }
        }
    }

    override func backward(batch: Int) {
        guard input.needsGradient else { return }
        let dy = output.gradient.pointer
        let dims = input.shape.classic
        let inPlane = dims.plane, outWidth = columnSource.count, outPlane = rowSource.count * outWidth
        let planes = planes(batch)
        setGradient(of: input, count: planes * inPlane) { dx in
            dx.update(repeating: 0, count: planes * inPlane)
            for plane in 0..<planes {
                let source = dy + plane * outPlane, target = dx + plane * inPlane
                for (row, targetRow) in rowSource.enumerated() where targetRow >= 0 {
                    let line = target + targetRow * dims.width, out = source + row * outWidth
                    for (column, targetColumn) in columnSource.enumerated() where targetColumn >= 0 {
                        line[targetColumn] += out[column]
                    }
                }
            }
        }
    }
}
