import CoreMLSpec

/// Core ML's classic `reshape`. A `targetShape` of 3 is `[C, H, W]` and keeps the sequence length
/// (each sequence position is reshaped); one of 4 is `[Seq, C, H, W]` and reshapes the whole
/// example. The number of values must not change.
///
/// `channelFirst` keeps the data order (a copy). `channelLast` reads the input in H, W, C order
/// (per sequence position, positions one after the other), cuts that stream into output
/// positions holding H_out·W_out·C_out values in H, W, C order, and stores them as C, H, W.
///
/// The engine reshapes each example on its own: Core ML's batch axis is kept apart, so a new
/// sequence length never mixes examples.
final class ReshapeNode: LayerNode, @unchecked Sendable {
    let targetShape: [Int]
    let channelLast: Bool
    private var indexMap: ClassicIndexMap?

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_ReshapeLayerParams, inputs: [Blob], outputs: [Blob]) throws {
        targetShape = params.targetShape.map { Int($0) }
        channelLast = params.mode == .channelLast
        super.init(spec, inputs: inputs, outputs: outputs)
        guard targetShape.count == 3 || targetShape.count == 4 else {
            throw fail("targetShape \(targetShape) must have 3 ([C, H, W]) or 4 ([Seq, C, H, W]) sizes")
        }
        guard targetShape.allSatisfy({ $0 > 0 }) else { throw fail("targetShape \(targetShape) must hold positive sizes") }
    }

    override func inferShapes() throws {
        let source = ClassicDims(input.shape)
        let t = targetShape
        let target = t.count == 3
            ? ClassicDims(outer: source.outer, channels: t[0], height: t[1], width: t[2])
            : ClassicDims(outer: t[0], channels: t[1], height: t[2], width: t[3])
        guard target.count == source.count else {
            let what = t.count == 3 ? "\(source.channels * source.plane) values per sequence position" : "\(source.count) values"
            throw fail("cannot reshape input '\(input.name)' (shape \(input.shape), \(what)) to \(t)")
        }
        output.shape = .classic(outer: target.outer, channels: target.channels, height: target.height, width: target.width)
        indexMap = channelLast ? Self.channelLastMap(from: source, to: target) : nil
    }

    /// For each output position (C, H, W order) the input position it reads.
    static func channelLastMap(from s: ClassicDims, to t: ClassicDims) -> ClassicIndexMap {
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

    override func forward(batch: Int, training: Bool) {
        let x = input.value.pointer, y = output.value.pointer
        if let indexMap { indexMap.gather(x, into: y, batch: batch) } else { y.update(from: x, count: batch * input.shape.count) }
    }

    override func backward(batch: Int) {
        guard input.needsGradient else { return }
        let dy = output.gradient.pointer
        setGradient(of: input, count: batch * input.shape.count) { dx in
            if let indexMap { indexMap.scatter(dy, into: dx, batch: batch) } else { dx.update(from: dy, count: batch * input.shape.count) }
        }
    }
}
