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
        if inputs.isEmpty { throw fail("add needs at least one input") }
    }

    override func inferShapes() throws {
        (output.shape, broadcasts) = try ClassicElementwiseBroadcast.infer(inputs, fail: fail)
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

/// Shape inference shared by `add` and `multiply`.
enum ClassicElementwiseBroadcast {
    /// The output shape (the per-axis largest input) and how each input is read into it.
    static func infer(_ inputs: [Blob], fail: (String) -> EngineError) throws -> (TensorShape, [ClassicBroadcast]) {
        let dims = inputs.map { ClassicDims($0.shape) }
        let largest = dims.dropFirst().reduce(dims[0].array) { result, next in zip(result, next.array).map { max($0, $1) } }
        let target = ClassicDims(outer: largest[0], channels: largest[1], height: largest[2], width: largest[3])
        var broadcasts: [ClassicBroadcast] = []
        for (input, shape) in zip(inputs, dims) {
            guard let broadcast = ClassicBroadcast(shape, to: target, perExample: true) else {
                let all = inputs.map { "'\($0.name)' \($0.shape)" }.joined(separator: ", ")
                throw fail("input '\(input.name)' (shape \(input.shape)) does not broadcast to \(target) [outer×C×H×W]: every axis must be 1 or the largest size among the inputs (\(all))")
            }
            broadcasts.append(broadcast)
        }
        // Keep the rank of an input that already has the output's size.
        let full = zip(inputs, dims).first { $0.1 == target }?.0.shape
        let shape = full ?? TensorShape.classic(outer: target.outer, channels: target.channels, height: target.height, width: target.width)
        return (shape, broadcasts)
    }
}
