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

    /// The activation that runs on the sum in place, when fused (`Network.fuseResidualAdds`): the
    /// add then writes the activation's output blob, and its own output is never filled.
    private(set) var fusedActivation: FusedActivation?
    /// The sum before the fused activation, kept while training when the activation's derivative
    /// needs its input (``Activation/differentiatesFromOutput``).
    private let preActivation = FloatBuffer()
    /// The gradient of the sum, from the fused activation's output gradient (training).
    private let sumGradient = FloatBuffer()

    /// Runs `activation` on this layer's sum, in place.
    func fuse(_ activation: FusedActivation) {
        fusedActivation = activation
    }

    override var producedOutputs: [Blob] { [fusedActivation?.output ?? output] }

    /// Whether the sum is kept for the fused activation's backward pass.
    private var keepsSum: Bool { fusedActivation.map { !$0.activation.differentiatesFromOutput } ?? false }

    override func reserve(batch: Int, training: Bool) {
        guard training, fusedActivation != nil else { return }
        let count = batch * output.shape.count
        sumGradient.reserve(count)
        if keepsSum { preActivation.reserve(count) }
    }

    override func forward(batch: Int, training: Bool) {
        guard let fused = fusedActivation else { return sum(into: output.value.pointer, batch: batch) }
        let count = batch * output.shape.count, y = fused.output.value.pointer
        if training && keepsSum {
            sum(into: preActivation.pointer, batch: batch)
            fused.activation.forward(preActivation.pointer, y, count: count)
        } else {
            sum(into: y, batch: batch)
            fused.forward(y, count: count)
        }
    }

    /// The sum of the inputs (or `x + alpha`) for `batch` examples, into `y`.
    private func sum(into y: UnsafeMutablePointer<Float>, batch: Int) {
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

    override var hasBackward: Bool { true }

    override func backward(batch: Int) {
        var dy = UnsafePointer(output.gradient.pointer)
        if let fused = fusedActivation {
            // The gradient through the activation, from its output (or from the kept sum).
            let count = batch * output.shape.count, y = fused.output.value.pointer, g = fused.output.gradient.pointer
            if keepsSum {
                fused.activation.backward(x: preActivation.pointer, y: y, dy: g, into: sumGradient.pointer, count: count)
            } else {
                fused.backward(output: y, gradient: g, into: sumGradient.pointer, count: count)
            }
            dy = UnsafePointer(sumGradient.pointer)
        }
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
