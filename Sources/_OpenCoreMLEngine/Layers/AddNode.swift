import CoreMLSpec
import _OpenCoreMLKernels

/// Core ML's classic `add`: the elementwise sum of its inputs, or `x + alpha` for a single input.
///
/// Inputs broadcast over the classic axes `[outer, C, H, W]`: each axis of an input is either 1
/// or the output's size (for example `[1, 1, 1]`, `[C, 1, 1]` or `[1, H, W]` against `[C, H, W]`).
/// The output has, on every axis, the largest size among the inputs. Core ML lists only the
/// combinations C = 1 and/or H = W = 1; the engine accepts any axis of size 1 (a superset).
final class AddNode: LayerNode, @unchecked Sendable {
    let alpha: Float
    private var broadcasts: [ClassicBroadcast] = []

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_AddLayerParams, inputs: [Blob], outputs: [Blob]) throws {
        alpha = params.alpha
        super.init(spec, inputs: inputs, outputs: outputs)
    }

    override func prepareForShapes() throws {
        broadcasts = try ClassicElementwiseBroadcast.broadcasts(of: self)
    }

    override func forward(batch: Int, training: Bool) {
        let y = output.value.pointer
        broadcasts[0].assign(inputs[0].value.pointer, to: y, batch: batch)
        if inputs.count == 1 {
            if alpha != 0 {
                let n = batch * output.shape.count
                for i in 0..<n { y[i] += alpha }
            }
            return
        }
        for (input, broadcast) in zip(inputs, broadcasts).dropFirst() {
            broadcast.add(input.value.pointer, to: y, batch: batch)
        }
    }

    override func backward(batch: Int) {
        let dy = output.gradient.pointer
        for (input, broadcast) in zip(inputs, broadcasts) where input.needsGradient {
            // The sum passes the gradient through, summed over the axes the input was repeated on.
            let count = batch * input.shape.count
            setGradient(of: input, count: count) { dx in
                broadcast.reduce(dy, into: dx, sourceCount: count, batch: batch)
            }
        }
    }
}

/// How the inputs of `add` and `multiply` are read into their output, whose shape the layer
/// table worked out (the per-axis largest input, every input axis being 1 or that size).
enum ClassicElementwiseBroadcast {
    static func broadcasts(of node: LayerNode) throws -> [ClassicBroadcast] {
        let target = node.output.shape.classic
        return try node.inputs.map { input in
            guard let broadcast = ClassicBroadcast(input.shape.classic, to: target, perExample: true) else {
                throw node.fail("input '\(input.name)' (shape \(input.shape)) does not broadcast to \(target) [outer×C×H×W]")
            }
            return broadcast
        }
    }
}
