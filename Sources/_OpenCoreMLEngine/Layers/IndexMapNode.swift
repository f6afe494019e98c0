import CoreMLSpec

/// A layer that only moves values: each output position reads one input position, given by an index
/// map computed once from the shapes (`nil` when the order does not change: a plain copy). Forward
/// gathers by the map, backward scatters the gradient back. Permute, reshape, flatten, flattenTo2D
/// and reshapeStatic are such layers; they differ only in the map they compute in
/// `prepareForShapes()` (the last two never move values).
class IndexMapNode: LayerNode, @unchecked Sendable {
    var indexMap: ClassicIndexMap?

    override func forward(batch: Int, training: Bool) {
        let x = input.value.pointer, y = output.value.pointer
        if let indexMap { indexMap.gather(x, into: y, batch: batch) } else { y.update(from: x, count: batch * input.shape.count) }
    }

    override var hasBackward: Bool { true }

    override func backward(batch: Int) {
        guard input.needsGradient else { return }
        let dy = output.gradient.pointer
        setGradient(of: input, count: batch * input.shape.count) { dx in
            if let indexMap { indexMap.scatter(dy, into: dx, batch: batch) } else { dx.update(from: dy, count: batch * input.shape.count) }
        }
    }

    /// The map of Core ML's channel-last mode (reshape and flatten): the input is read as an H, W, C
    /// stream and laid out again with shape `t`; for each output position (C, H, W order), the input
    /// position it reads.
    static func channelLastMap(from s: ClassicShape, to t: ClassicShape) -> ClassicIndexMap {
        let sourceBlock = s.channels * s.plane, targetBlock = t.channels * t.plane
        var map = [Int](repeating: 0, count: t.count)
        var index = 0
        for o in 0..<t.outer {
            for c in 0..<t.channels {
                for h in 0..<t.height {
                    for w in 0..<t.width {
                        // Position in the H, W, C ordered stream.
                        let stream = o * targetBlock + (h * t.width + w) * t.channels + c
                        let block = stream / sourceBlock, rest = stream % sourceBlock
                        let position = rest / s.channels, channel = rest % s.channels
                        map[index] = block * sourceBlock + channel * s.plane + position
                        index += 1
                    }
                }
            }
        }
        return ClassicIndexMap(map: map)
    }
}
