import _OpenCoreMLKernels

/// Reductions over a set of axes, written once: sum, mean, max, min and product, and the ones
/// built on them — the L1 and L2 norms, the sum of squares, log Σx and log Σeˣ (the ML Program's
/// `reduce_*` operations); also the index of the largest or smallest value along one axis
/// (`reduce_argmax`, `reduce_argmin`) and the running sum along one axis (`cumsum`).
///
/// The axes are merged into runs (neighbouring reduced axes are one axis, axes of size 1 are
/// dropped), and each run is reduced as the middle axis of an `[outer, length, inner]` view: rows
/// (`inner` 1) or whole `inner`-long vectors at a time, the sums on the C kernels. A reduction over
/// several separate runs reduces the innermost first, into a scratch buffer.
enum Reduction {
    enum Kind: Sendable {
        case sum, mean, max, min, prod
        /// `Σ|x|`.
        case l1Norm
        /// `√Σx²`.
        case l2Norm
        /// `Σx²`.
        case sumSquare
        /// `log Σx`.
        case logSum
        /// `log Σeˣ`, computed as `m + log Σe^(x − m)` with `m` the maximum, so no eˣ overflows
        /// (a maximum of ±∞ gives NaN, as the opsets' NumPy reference does).
        case logSumExp

        /// What a reduction of no values gives (a mean divides 0 by 0).
        var empty: Float {
            switch self {
            case .sum, .l1Norm, .l2Norm, .sumSquare: 0
            case .mean: .nan
            case .prod: 1
            case .max: -.infinity
            case .min: .infinity
            case .logSum, .logSumExp: -.infinity
            }
        }
    }

    /// Reduces `x`, of `shape`, over `axes` (resolved, distinct) into `y`, which holds the shape
    /// with every reduced axis of size 1 (`y` must not overlap `x`).
    static func reduce(_ kind: Kind, _ x: UnsafeBufferPointer<Float>, shape: [Int], axes: [Int], into y: UnsafeMutableBufferPointer<Float>) {
        guard let output = y.baseAddress, !y.isEmpty else { return }
        guard let source = x.baseAddress, !x.isEmpty else { return output.update(repeating: kind.empty, count: y.count) }
        switch kind {
        case .sum, .mean, .max, .min, .prod:
            reduceDirectly(kind, x, shape: shape, axes: axes, into: y)
        case .logSum:
            reduceDirectly(.sum, x, shape: shape, axes: axes, into: y)
            UnaryFunction.log(epsilon: 0).forward(output, output, count: y.count)
        case .l1Norm, .l2Norm, .sumSquare:
            // |x| or x² into a scratch buffer, then its sum.
            let mapped = UnsafeMutableBufferPointer<Float>.allocate(capacity: x.count)
            defer { mapped.deallocate() }
            (kind == .l1Norm ? UnaryFunction.abs : .square).forward(source, mapped.baseAddress!, count: x.count)
            reduceDirectly(.sum, UnsafeBufferPointer(mapped), shape: shape, axes: axes, into: y)
            if kind == .l2Norm { UnaryFunction.sqrt.forward(output, output, count: y.count) }
        case .logSumExp:
            reduceDirectly(.max, x, shape: shape, axes: axes, into: y)
            // e^(x − m), m repeated along the reduced axes, then its sum's log added to m.
            var kept = shape
            for axis in axes { kept[axis] = 1 }
            let shifted = UnsafeMutableBufferPointer<Float>.allocate(capacity: x.count)
            let sums = UnsafeMutableBufferPointer<Float>.allocate(capacity: y.count)
            defer { shifted.deallocate(); sums.deallocate() }
            Broadcast(shape: shape, strides: [Broadcast.strides(shape), Broadcast.strides(repeatingOnes: kept)])
                .binary(OCM_BINARY_SUB, source, output, into: shifted.baseAddress!)
            UnaryFunction.exp.forward(shifted.baseAddress!, shifted.baseAddress!, count: x.count)
            reduceDirectly(.sum, UnsafeBufferPointer(shifted), shape: shape, axes: axes, into: sums)
            UnaryFunction.log(epsilon: 0).forward(sums.baseAddress!, sums.baseAddress!, count: y.count)
            ocm_binary(OCM_BINARY_ADD, output, sums.baseAddress!, output, y.count)
        }
    }

    /// A sum, mean, maximum, minimum or product of non-empty `x`.
    private static func reduceDirectly(_ kind: Kind, _ x: UnsafeBufferPointer<Float>, shape: [Int], axes: [Int], into y: UnsafeMutableBufferPointer<Float>) {
        guard let output = y.baseAddress, let source = x.baseAddress else { return }
        var reducedCount = 1
        for axis in axes { reducedCount *= shape[axis] }
        // The runs: (size, reduced), neighbours of the same kind merged, sizes of 1 left out.
        var runs: [(size: Int, reduced: Bool)] = []
        for (d, size) in shape.enumerated() where size != 1 {
            let reduced = axes.contains(d)
            if let last = runs.last, last.reduced == reduced { runs[runs.count - 1].size *= size } else { runs.append((size, reduced)) }
        }
        var current = source
        // The scratch buffer `current` points into, once an inner run has been reduced.
        var held: UnsafeMutablePointer<Float>? = nil
        defer { held?.deallocate() }
        while let r = runs.lastIndex(where: \.reduced) {
            var outer = 1, inner = 1
            for run in runs[..<r] { outer *= run.size }
            for run in runs[(r + 1)...] { inner *= run.size }
            let isLast = !runs[..<r].contains(where: \.reduced)
            let target = isLast ? output : UnsafeMutablePointer<Float>.allocate(capacity: max(outer * inner, 1))
            reduceAxis(kind, current, into: target, outer: outer, length: runs[r].size, inner: inner)
            held?.deallocate()
            held = isLast ? nil : target
            current = UnsafePointer(target)
            runs.remove(at: r)
            if r > 0, r < runs.count, !runs[r - 1].reduced, !runs[r].reduced {
                runs[r - 1].size *= runs[r].size
                runs.remove(at: r)
            }
        }
        if current == source { output.update(from: source, count: y.count) }
        if kind == .mean {
            let count = Float(reducedCount)
            for i in 0..<y.count { output[i] /= count }
        }
    }

    /// `y[o][i] = combine over k of x[o][k][i]` for the `[outer, length, inner]` view.
    private static func reduceAxis(_ kind: Kind, _ x: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>, outer: Int, length: Int, inner: Int) {
        let fitsKernel = length <= Int(Int32.max) && inner <= Int(Int32.max) && outer <= Int(Int32.max)
        switch kind {
        case .sum, .mean:
            if inner == 1, fitsKernel {
                ocm_sum_cols(x, y, Int32(outer), Int32(length), Int32(length), false)
            } else if fitsKernel {
                for o in 0..<outer { ocm_sum_rows(x + o * length * inner, y + o * inner, Int32(length), Int32(inner), Int32(inner), false) }
            } else {
                combine(x, into: y, outer: outer, length: length, inner: inner, start: 0) { $0 + $1 }
            }
        case .max:
            combine(x, into: y, outer: outer, length: length, inner: inner, start: -.infinity) { Swift.max($0, $1) }
        case .min:
            combine(x, into: y, outer: outer, length: length, inner: inner, start: .infinity) { Swift.min($0, $1) }
        case .prod:
            combine(x, into: y, outer: outer, length: length, inner: inner, start: 1) { $0 * $1 }
        case .l1Norm, .l2Norm, .sumSquare, .logSum, .logSumExp:
            preconditionFailure("\(kind) is reduced through a sum")
        }
    }

    /// The reduction written out from `start` (so a NaN is skipped by max and min, as Swift's `max` and
    /// `min` do), `combine` inlined into each loop (rows, or vectors of `inner`).
    @inline(__always)
    private static func combine(_ x: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>, outer: Int, length: Int, inner: Int,
                                start: Float, _ combine: (Float, Float) -> Float) {
        for o in 0..<outer {
            let block = x + o * length * inner, row = y + o * inner
            if inner == 1 {
                var value = start
                for k in 0..<length { value = combine(value, block[k]) }
                row[0] = value
                continue
            }
            row.update(repeating: start, count: inner)
            for k in 0..<length {
                let line = block + k * inner
                for i in 0..<inner { row[i] = combine(row[i], line[i]) }
            }
        }
    }

    // MARK: Along one axis

    /// The index along the middle axis of the `[outer, length, inner]` view of each largest
    /// (`largest`) or smallest value, into `y` (`outer·inner` values): the first on ties, and the
    /// first NaN where there is one (NumPy's `argmax` and `argmin`). Nothing is written when
    /// `length` is 0 (no index exists).
    static func argIndex(_ x: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>, outer: Int, length: Int, inner: Int, largest: Bool) {
        guard length > 0 else { return }
        let best = UnsafeMutablePointer<Float>.allocate(capacity: max(inner, 1))
        defer { best.deallocate() }
        for o in 0..<outer {
            let block = x + o * length * inner, index = y + o * inner
            best.update(from: block, count: inner)
            index.update(repeating: 0, count: inner)
            for k in 1..<length {
                let line = block + k * inner
                for i in 0..<inner where !best[i].isNaN {
                    let v = line[i]
                    if v.isNaN || (largest ? v > best[i] : v < best[i]) {
                        best[i] = v
                        index[i] = Float(k)
                    }
                }
            }
        }
    }

    /// The running sum along the middle axis of the `[outer, length, inner]` view, from its last
    /// element back when `reverse`, each sum leaving out its own element when `exclusive` (the first
    /// is then 0); `y` must not overlap `x`.
    static func cumulativeSum(_ x: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>, outer: Int, length: Int, inner: Int,
                              exclusive: Bool, reverse: Bool) {
        guard length > 0 else { return }
        for o in 0..<outer {
            let source = x + o * length * inner, sums = y + o * length * inner
            let first = reverse ? length - 1 : 0, step = reverse ? -1 : 1
            if exclusive {
                (sums + first * inner).update(repeating: 0, count: inner)
            } else {
                (sums + first * inner).update(from: source + first * inner, count: inner)
            }
            var previous = first
            for _ in 1..<length {
                let k = previous + step
                // Exclusive: the previous sum plus the previous element; inclusive: plus this one.
                let added = source + (exclusive ? previous : k) * inner, before = sums + previous * inner, row = sums + k * inner
                for i in 0..<inner { row[i] = before[i] + added[i] }
                previous = k
            }
        }
    }
}
