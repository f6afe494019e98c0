import Foundation
import _OpenCoreMLKernels

/// Normalizations written once for both interpreters: batch normalization (stored statistics folded
/// into one scale and shift per channel, or statistics computed over the batch or per instance,
/// with the full gradient), instance and layer normalization, L2 normalization and local response
/// normalization. The classic `batchnorm` and `l2normalize` layers and the ML Program's
/// `batch_norm`, `instance_norm`, `layer_norm`, `l2_norm` and `local_response_norm` are adapters
/// from their parameters to these.
///
/// Variances are the population variance and ε is added to the variance before its square root.
/// Computed statistics accumulate in double precision (two passes: the mean, then the squares
/// about it); layer normalization over the last axes runs on the C kernel, threaded over rows.
enum Normalization {
    /// Channel planes grouped for their statistics: `blocks` blocks (examples, sequence positions)
    /// of `channels` planes of `plane` values each (NCHW). A group is one plane (`perInstance`:
    /// instance normalization) or one channel across every block (batch normalization).
    struct PlaneGroups {
        let blocks: Int, channels: Int, plane: Int
        let perInstance: Bool

        var count: Int { perInstance ? blocks * channels : channels }
        /// The values one group holds.
        var size: Int { perInstance ? plane : blocks * plane }

        /// The channel of `group`.
        @inline(__always)
        func channel(of group: Int) -> Int { perInstance ? group % channels : group }

        /// Calls `body(offset)` for the start of every plane of `group`, in memory order.
        @inline(__always)
        func forEachPlane(of group: Int, _ body: (_ offset: Int) -> Void) {
            if perInstance {
                body(group * plane)
            } else {
                for block in 0..<blocks { body((block * channels + group) * plane) }
            }
        }
    }

    // MARK: Stored statistics

    /// Folds stored statistics into one scale and shift per channel (batch normalization at
    /// inference): `scale = γ/√(σ² + ε)`, `shift = β − scale·μ`; γ 1 and β 0 when nil.
    static func fold(mean: UnsafePointer<Float>, variance: UnsafePointer<Float>, gamma: UnsafePointer<Float>?, beta: UnsafePointer<Float>?,
                     epsilon: Float, channels: Int, scale: UnsafeMutablePointer<Float>, shift: UnsafeMutablePointer<Float>) {
        for c in 0..<channels {
            let a = (gamma?[c] ?? 1) / (variance[c] + epsilon).squareRoot()
            scale[c] = a
            shift[c] = (beta?[c] ?? 0) - a * mean[c]
        }
    }

    /// `y = scale[c]·x + shift[c]` over every channel plane (y may be x: in place).
    static func scaleAndShift(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, scale: UnsafePointer<Float>, shift: UnsafePointer<Float>,
                              blocks: Int, channels: Int, plane: Int) {
        for block in 0..<blocks {
            for c in 0..<channels {
                let offset = (block * channels + c) * plane, a = scale[c], b = shift[c]
                for i in offset..<(offset + plane) { y[i] = a * x[i] + b }
            }
        }
    }

    // MARK: Computed statistics

    /// Each group's mean and `1/√(σ² + ε)`, into `mean` and `inverseDeviation` (`groups.count` each).
    static func statistics(_ x: UnsafePointer<Float>, _ groups: PlaneGroups, epsilon: Float,
                           mean: UnsafeMutablePointer<Float>, inverseDeviation: UnsafeMutablePointer<Float>) {
        let plane = groups.plane, count = Double(max(groups.size, 1))
        for group in 0..<groups.count {
            var sum = 0.0
            groups.forEachPlane(of: group) { offset in
                var planeSum = 0.0
                for i in offset..<(offset + plane) { planeSum += Double(x[i]) }
                sum += planeSum
            }
            let mu = Float(sum / count)
            var squares = 0.0
            groups.forEachPlane(of: group) { offset in
                var planeSum = 0.0
                for i in offset..<(offset + plane) {
                    let d = Double(x[i] - mu)
                    planeSum += d * d
                }
                squares += planeSum
            }
            mean[group] = mu
            inverseDeviation[group] = Float(1 / (squares / count + Double(epsilon)).squareRoot())
        }
    }

    /// `y = γ[c]·(x − μ)/σ + β[c]` with each group's computed statistics; γ 1 and β 0 when nil.
    static func normalize(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, _ groups: PlaneGroups,
                          mean: UnsafePointer<Float>, inverseDeviation: UnsafePointer<Float>,
                          gamma: UnsafePointer<Float>?, beta: UnsafePointer<Float>?) {
        let plane = groups.plane
        for group in 0..<groups.count {
            let c = groups.channel(of: group)
            let a = (gamma?[c] ?? 1) * inverseDeviation[group], mu = mean[group], b = beta?[c] ?? 0
            groups.forEachPlane(of: group) { offset in
                for i in offset..<(offset + plane) { y[i] = a * (x[i] - mu) + b }
            }
        }
    }

    // MARK: Batch normalization's gradient

    /// The statistics a batch normalization used: stored (constants, no gradient through them)
    /// or computed by ``statistics(_:_:epsilon:mean:inverseDeviation:)`` (one per group).
    enum Statistics {
        case stored(mean: [Float], variance: [Float], epsilon: Float)
        case computed(mean: UnsafePointer<Float>, inverseDeviation: UnsafePointer<Float>)

        /// Whether slots are the groups (computed) rather than the channels (stored).
        var isComputed: Bool { if case .computed = self { true } else { false } }

        /// The mean and `1/σ` of `group`, of channel `c`.
        @inline(__always)
        func moments(group: Int, channel c: Int) -> (mean: Float, inverseDeviation: Float) {
            switch self {
            case .stored(let mean, let variance, let epsilon): return (mean[c], 1 / (variance[c] + epsilon).squareRoot())
            case .computed(let mean, let inverseDeviation): return (mean[group], inverseDeviation[group])
            }
        }
    }

    /// Per statistics slot (a group when computed, a channel when stored), `Σ dy` and `Σ dy·x̂`,
    /// `x̂` the normalized input.
    static func gradientSums(x: UnsafePointer<Float>, dy: UnsafePointer<Float>, _ groups: PlaneGroups, _ statistics: Statistics)
        -> (sumDy: [Float], sumDyXhat: [Float]) {
        let plane = groups.plane
        // Stored statistics: one slot per channel, whatever the grouping.
        let slots = statistics.isComputed ? groups : PlaneGroups(blocks: groups.blocks, channels: groups.channels, plane: plane, perInstance: false)
        var sumDy = [Float](repeating: 0, count: slots.count), sumDyXhat = [Float](repeating: 0, count: slots.count)
        for slot in 0..<slots.count {
            let (mu, inverse) = statistics.moments(group: slot, channel: slots.channel(of: slot))
            var totalDy: Float = 0, totalDyXhat: Float = 0
            slots.forEachPlane(of: slot) { offset in
                var a: Float = 0, d: Float = 0
                for i in offset..<(offset + plane) {
                    a += dy[i]
                    d += dy[i] * (x[i] - mu) * inverse
                }
                totalDy += a
                totalDyXhat += d
            }
            sumDy[slot] = totalDy
            sumDyXhat[slot] = totalDyXhat
        }
        return (sumDy, sumDyXhat)
    }

    /// `∂γ[c] = Σ dy·x̂` and `∂β[c] = Σ dy` over every slot of channel `c` (either may be nil).
    static func parameterGradients(sumDy: [Float], sumDyXhat: [Float], _ groups: PlaneGroups, _ statistics: Statistics,
                                   dGamma: UnsafeMutablePointer<Float>?, dBeta: UnsafeMutablePointer<Float>?) {
        dGamma?.update(repeating: 0, count: groups.channels)
        dBeta?.update(repeating: 0, count: groups.channels)
        for slot in sumDy.indices {
            let c = statistics.isComputed ? groups.channel(of: slot) : slot
            dGamma?[c] += sumDyXhat[slot]
            dBeta?[c] += sumDy[slot]
        }
    }

    /// The input's gradient: `dx = γ/σ·(dy − mean(dy) − x̂·mean(dy·x̂))` over each group with
    /// computed statistics, `dx = γ/σ·dy` with stored ones.
    static func inputGradient(x: UnsafePointer<Float>, dy: UnsafePointer<Float>, dx: UnsafeMutablePointer<Float>, _ groups: PlaneGroups,
                              _ statistics: Statistics, gamma: UnsafePointer<Float>, sumDy: [Float], sumDyXhat: [Float]) {
        let plane = groups.plane, count = Float(groups.size)
        for group in 0..<groups.count {
            let c = groups.channel(of: group)
            switch statistics {
            case .computed(let mean, let inverseDeviation):
                let mu = mean[group], inverse = inverseDeviation[group], a = gamma[c] * inverse
                let meanDy = sumDy[group] / count, meanDyXhat = sumDyXhat[group] / count
                groups.forEachPlane(of: group) { offset in
                    for i in offset..<(offset + plane) { dx[i] = a * (dy[i] - meanDy - (x[i] - mu) * inverse * meanDyXhat) }
                }
            case .stored(_, let variance, let epsilon):
                let a = gamma[c] / (variance[c] + epsilon).squareRoot()
                groups.forEachPlane(of: group) { offset in
                    for i in offset..<(offset + plane) { dx[i] = a * dy[i] }
                }
            }
        }
    }

    // MARK: Layer normalization

    /// Layer normalization of a tensor of `shape` over `axes` (resolved, increasing), then `γ` and
    /// `β` (shaped as the normalized dimensions in increasing axis order; 1 and 0 when nil).
    /// Over the last axes (each group one contiguous row) it runs on the C kernel.
    static func layerNorm(_ x: [Float], _ y: inout [Float], shape: [Int], axes: [Int], gamma: [Float]?, beta: [Float]?, epsilon: Float) {
        let rank = shape.count
        var size = 1
        for axis in axes { size *= shape[axis] }
        if axes == Array((rank - axes.count)..<rank), size > 0, size <= Int(Int32.max), x.count / size <= Int(Int32.max) {
            let rows = Int32(x.count / size)
            withOptionalPointer(gamma) { gamma in
                withOptionalPointer(beta) { beta in
                    ocm_layer_norm_rows(x, &y, gamma, beta, rows, Int32(size), Int32(size), Int32(size), epsilon)
                }
            }
            return
        }
        for i in x.indices { y[i] = x[i] }
        normalizeScattered(&y, shape: shape, axes: axes, epsilon: epsilon)
        guard gamma != nil || beta != nil else { return }
        // Row-major position within the normalized dimensions, for each value.
        var parameterStrides = [Int](repeating: 0, count: rank)
        var step = 1
        for axis in axes.reversed() { parameterStrides[axis] = step; step *= shape[axis] }
        var index = [Int](repeating: 0, count: rank)
        for position in y.indices {
            var k = 0
            for d in 0..<rank { k += index[d] * parameterStrides[d] }
            y[position] = y[position] * (gamma?[k] ?? 1) + (beta?[k] ?? 0)
            Broadcast.advance(&index, within: shape)
        }
    }

    /// Normalizes groups of values that share every index outside `axes`, wherever they lie.
    private static func normalizeScattered(_ values: inout [Float], shape: [Int], axes: [Int], epsilon: Float) {
        var kept = shape
        for axis in axes { kept[axis] = 1 }
        let groupStrides = Broadcast.strides(repeatingOnes: kept), groups = kept.reduce(1, *), rank = shape.count
        let size = Float(max(axes.map { shape[$0] }.reduce(1, *), 1))
        var group = [Int](repeating: 0, count: values.count)
        var index = [Int](repeating: 0, count: rank)
        for position in values.indices {
            for d in 0..<rank { group[position] += index[d] * groupStrides[d] }
            Broadcast.advance(&index, within: shape)
        }
        var mean = [Float](repeating: 0, count: groups), variance = [Float](repeating: 0, count: groups)
        for position in values.indices { mean[group[position]] += values[position] }
        for g in 0..<groups { mean[g] /= size }
        for position in values.indices {
            let d = values[position] - mean[group[position]]
            variance[group[position]] += d * d
        }
        let factor = variance.map { 1 / ($0 / size + epsilon).squareRoot() }
        for position in values.indices { values[position] = (values[position] - mean[group[position]]) * factor[group[position]] }
    }

    // MARK: L2 normalization

    /// `y = x/√(Σx² + ε)` over each of `blocks` blocks of `size` values, the sum in double
    /// precision; `1/√(Σx² + ε)` per block into `inverseNorms` (for backward).
    static func l2Normalize(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, blocks: Int, size: Int, epsilon: Float,
                            inverseNorms: UnsafeMutablePointer<Float>) {
        for block in 0..<blocks {
            let base = block * size
            var sum: Double = 0
            for i in base..<(base + size) { sum += Double(x[i]) * Double(x[i]) }
            let inverse = Float(1 / (sum + Double(epsilon)).squareRoot())
            inverseNorms[block] = inverse
            for i in base..<(base + size) { y[i] = x[i] * inverse }
        }
    }

    /// L2 normalization's gradient: `dx = (dy − y·Σ dy·y)/√(Σx² + ε)` per block, `y` the output.
    static func l2NormalizeBackward(y: UnsafePointer<Float>, dy: UnsafePointer<Float>, dx: UnsafeMutablePointer<Float>, blocks: Int, size: Int,
                                    inverseNorms: UnsafePointer<Float>) {
        for block in 0..<blocks {
            let base = block * size
            var dot: Float = 0
            for i in base..<(base + size) { dot += dy[i] * y[i] }
            for i in base..<(base + size) { dx[i] = (dy[i] - y[i] * dot) * inverseNorms[block] }
        }
    }

    // MARK: Local response normalization

    /// `y = x / (k + alpha/size · Σ x²)^beta` for `blocks` examples of `channels` planes of `plane`
    /// values, the sum over the `size` channels from `c − ⌊size/2⌋` to `c + ⌊(size − 1)/2⌋`, those
    /// outside counting as 0. (For an even `size` this is PyTorch's `LocalResponseNorm` window,
    /// which coremltools' tests compare `local_response_norm` with; Core ML's documentation of the
    /// classic `lrn` layer places the extra channel after `c` instead.)
    static func localResponseNorm(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, blocks: Int, channels: Int, plane: Int,
                                  size: Int, alpha: Float, beta: Float, k: Float) {
        guard plane > 0, channels > 0 else { return }
        let sums = UnsafeMutablePointer<Float>.allocate(capacity: plane)
        defer { sums.deallocate() }
        let scale = alpha / Float(size)
        for block in 0..<blocks {
            let base = block * channels * plane
            for c in 0..<channels {
                sums.update(repeating: 0, count: plane)
                for j in max(c - size / 2, 0)...min(c + (size - 1) / 2, channels - 1) {
                    let row = x + base + j * plane
                    for i in 0..<plane { sums[i] += row[i] * row[i] }
                }
                let offset = base + c * plane
                for i in 0..<plane { y[offset + i] = x[offset + i] * Foundation.pow(k + scale * sums[i], -beta) }
            }
        }
    }
}
