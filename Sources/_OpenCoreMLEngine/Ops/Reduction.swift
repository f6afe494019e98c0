import _OpenCoreMLKernels

/// Reductions over a set of axes, written once: sum, mean, max and min (the ML Program's
/// `reduce_sum`, `reduce_mean`, `reduce_max`, `reduce_min`).
///
/// The axes are merged into runs (neighbouring reduced axes are one axis, axes of size 1 are
/// dropped), and each run is reduced as the middle axis of an `[outer, length, inner]` view: rows
/// (`inner` 1) or whole `inner`-long vectors at a time, the sums on the C kernels. A reduction over
/// several separate runs reduces the innermost first, into a scratch buffer.
enum Reduction {
    enum Kind: Sendable {
        case sum, mean, max, min

        /// What an empty reduction gives (a mean's 0 then divides by 0: NaN).
        var start: Float {
            switch self {
            case .sum, .mean: 0
            case .max: -.infinity
            case .min: .infinity
            }
        }
    }

    /// Reduces `x`, of `shape`, over `axes` (resolved, distinct) into `y`, which holds the shape
    /// with every reduced axis of size 1 (`y` must not overlap `x`).
    static func reduce(_ kind: Kind, _ x: UnsafeBufferPointer<Float>, shape: [Int], axes: [Int], into y: UnsafeMutableBufferPointer<Float>) {
        guard let output = y.baseAddress, !y.isEmpty else { return }
        var reducedCount = 1
        for axis in axes { reducedCount *= shape[axis] }
        // The runs: (size, reduced), neighbours of the same kind merged, sizes of 1 left out.
        var runs: [(size: Int, reduced: Bool)] = []
        for (d, size) in shape.enumerated() where size != 1 {
            let reduced = axes.contains(d)
            if let last = runs.last, last.reduced == reduced { runs[runs.count - 1].size *= size } else { runs.append((size, reduced)) }
        }
        if reducedCount == 0 {
            output.update(repeating: kind.start, count: y.count)
        } else if let source = x.baseAddress {
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
        }
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
}
