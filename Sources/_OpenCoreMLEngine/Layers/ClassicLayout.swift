import CoreMLSpec
import _OpenCoreMLKernels

/// Helpers shared by the classic elementwise and shape layers: broadcasting of axes of size 1 over
/// the `[outer, C, H, W]` view of a blob (`ClassicShape`), and gathers through precomputed index maps.

/// How a tensor of classic dimensions `source` is read at the positions of a larger tensor of
/// classic dimensions `target`, each axis of size 1 being repeated (stride 0).
///
/// Strides are `[batch, outer, C, H, W]`; a batch stride of 0 reads the same values for every
/// example (a layer's parameter).
struct ClassicBroadcast {
    let target: ClassicShape
    let strides: [Int]
    /// Whether the source is laid out exactly like the target (same dimensions, one per example).
    let isIdentity: Bool

    /// Nil when some axis of `source` is neither 1 nor the target's size.
    init?(_ source: ClassicShape, to target: ClassicShape, perExample: Bool) {
        let s = source.array, t = target.array
        guard zip(s, t).allSatisfy({ $0 == $1 || $0 == 1 }) else { return nil }
        self.target = target
        strides = [perExample ? source.count : 0] + Broadcast.strides(repeatingOnes: s)
        isIdentity = s == t && perExample
    }

    /// Calls `body(targetOffset, sourceOffset, sourceStepAlongW)` for every row of W values of the
    /// first `batch` examples of the target.
    @inline(__always)
    func forEachRow(batch: Int, _ body: (_ target: Int, _ source: Int, _ step: Int) -> Void) {
        let t = target
        var offset = 0
        for b in 0..<batch {
            for o in 0..<t.outer {
                for c in 0..<t.channels {
                    let base = b * strides[0] + o * strides[1] + c * strides[2]
                    for h in 0..<t.height {
                        body(offset, base + h * strides[3], strides[4])
                        offset += t.width
                    }
                }
            }
        }
    }

    /// `y[i] = x[source(i)]` over the target.
    func assign(_ x: UnsafePointer<Float>, to y: UnsafeMutablePointer<Float>, batch: Int) {
        if isIdentity {
            y.update(from: x, count: batch * target.count)
            return
        }
        run(OCM_BINARY_RIGHT, x, y, batch: batch)
    }

    /// `y[i] += x[source(i)]` over the target.
    func add(_ x: UnsafePointer<Float>, to y: UnsafeMutablePointer<Float>, batch: Int) {
        if isIdentity {
            ocm_axpy(x, y, batch * target.count, 1)
            return
        }
        run(OCM_BINARY_ADD, x, y, batch: batch)
    }

    /// `y[i] *= x[source(i)]` over the target.
    func multiply(_ x: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>, batch: Int) {
        if isIdentity {
            ocm_mul(y, x, y, batch * target.count)
            return
        }
        run(OCM_BINARY_MUL, x, y, batch: batch)
    }

    /// `y[i] = y[i] op x[source(i)]` over the first `batch` examples of the target, by the one
    /// broadcasting driver (``Broadcast``).
    private func run(_ op: ocm_binary_op, _ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, batch: Int) {
        let shape = [batch] + target.array
        Broadcast(shape: shape, strides: [Broadcast.strides(repeatingOnes: shape), strides]).binary(op, y, x, into: y)
    }

    /// The adjoint of `assign`: overwrites `x` (the source, `sourceCount` values) with the sums
    /// of the target values `y` read from each of its positions.
    func reduce(_ y: UnsafePointer<Float>, into x: UnsafeMutablePointer<Float>, sourceCount: Int, batch: Int) {
        if isIdentity {
            x.update(from: y, count: batch * target.count)
            return
        }
        x.update(repeating: 0, count: sourceCount)
        let width = target.width
        forEachRow(batch: batch) { out, source, step in
            if step == 0 {
                var sum: Float = 0
                for w in 0..<width { sum += y[out + w] }
                x[source] += sum
            } else {
                for w in 0..<width { x[source + w * step] += y[out + w] }
            }
        }
    }
}

/// A fixed rearrangement of each example's values: `y[i] = x[map[i]]` (a bijection).
struct ClassicIndexMap {
    let map: [Int]

    func gather(_ x: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>, batch: Int) {
        let n = map.count
        map.withUnsafeBufferPointer { map in
            for b in 0..<batch {
                let source = x + b * n, target = y + b * n
                for i in 0..<n { target[i] = source[map[i]] }
            }
        }
    }

    /// The adjoint of `gather` (its inverse, as the map is a bijection).
    func scatter(_ dy: UnsafePointer<Float>, into dx: UnsafeMutablePointer<Float>, batch: Int) {
        let n = map.count
        map.withUnsafeBufferPointer { map in
            for b in 0..<batch {
                let source = dy + b * n, target = dx + b * n
                for i in 0..<n { target[map[i]] = source[i] }
            }
        }
    }
}

extension LayerNode {
    /// How a `bias` or `scale` layer's parameter `blob` of declared `shape` is read across the
    /// input, by the shape rule the layer table checked (`classicParameterShape`).
    func parameterBroadcast(_ blob: String, _ parameter: Parameter, declared shape: [UInt64]) throws -> ClassicBroadcast {
        let dims = input.shape.classic
        let result = CoreML_Specification_NeuralNetworkLayer.classicParameterShape(declared: shape, count: parameter.count, input: dims.array)
        guard case .success(let d) = result,
              let broadcast = ClassicBroadcast(ClassicShape(outer: d[0], channels: d[1], height: d[2], width: d[3]), to: dims, perExample: false)
        else {
            throw fail("\(blob) does not fit input '\(input.name)' (shape \(input.shape))")
        }
        return broadcast
    }
}
