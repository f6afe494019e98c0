import CoreMLSpec

/// Data movement written once: every operation that only rearranges values (`transpose`,
/// `pixel_shuffle`/`pixel_unshuffle`, `depth_to_space`/`space_to_depth`, `space_to_batch`/
/// `batch_to_space`, `reverse`, `sliding_windows`, `slice_by_index`, `slice_update`) reads or
/// writes its input through a ``StridedView``: the value at each row-major index `i` of the view
/// is `base[offset + Σ i[d] · strides[d]]`. The view's dimensions are merged where they are
/// contiguous and the innermost run is copied with `memcpy` when its stride is 1.

/// A strided window onto a row-major buffer: `shape` (the order values are visited in), one stride
/// per dimension (negative ones go backwards, 0 repeats) and the offset of the first value.
struct StridedView: Equatable, Sendable {
    var shape: [Int]
    var strides: [Int]
    var offset: Int

    /// The whole of a row-major tensor of `shape`, in order.
    init(_ shape: [Int]) {
        self.init(shape: shape, strides: Broadcast.strides(shape), offset: 0)
    }

    init(shape: [Int], strides: [Int], offset: Int) {
        precondition(shape.count == strides.count, "a strided view needs one stride per dimension")
        self.shape = shape
        self.strides = strides
        self.offset = offset
    }

    var count: Int { shape.reduce(1, *) }

    /// Whether every position the view reads lies in `0..<count` (always true of an empty view).
    func fits(within count: Int) -> Bool {
        if shape.contains(0) { return true }
        var low = offset, high = offset
        for (size, stride) in zip(shape, strides) {
            if stride > 0 { high += (size - 1) * stride } else { low += (size - 1) * stride }
        }
        return low >= 0 && high < count
    }

    /// The same positions visited in the order of `permutation` (output dimension `d` is this
    /// view's dimension `permutation[d]`).
    func permuted(_ permutation: [Int]) -> StridedView {
        StridedView(shape: permutation.map { shape[$0] }, strides: permutation.map { strides[$0] }, offset: offset)
    }

    /// Dimensions of size 1 dropped and neighbours that are contiguous merged: the fewest loops
    /// that visit the same positions in the same order.
    fileprivate func coalesced() -> (shape: [Int], strides: [Int]) {
        var shape: [Int] = [], strides: [Int] = []
        for (size, stride) in zip(self.shape, self.strides) where size != 1 {
            if let last = shape.last, strides[strides.count - 1] == stride * size {
                shape[shape.count - 1] = last * size
                strides[strides.count - 1] = stride
            } else {
                shape.append(size)
                strides.append(stride)
            }
        }
        return (shape, strides)
    }
}

/// Why a rearrangement does not fit the tensor it rearranges.
struct LayoutError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

enum Layout {
    /// `y[i] = x[view(i)]` for the `view.count` row-major positions of the view (`x` must hold
    /// every position it reads: ``StridedView/fits(within:)``).
    static func gather(_ x: UnsafePointer<Float>, _ view: StridedView, into y: UnsafeMutablePointer<Float>) {
        forEachRow(view) { position, source, length, step in
            if step == 1 {
                (y + position).update(from: x + source, count: length)
            } else {
                for k in 0..<length { y[position + k] = x[source + k * step] }
            }
        }
    }

    /// `x[view(i)] = y[i]`: the inverse of ``gather(_:_:into:)`` (the last write wins where a
    /// view visits a position twice).
    static func scatter(_ y: UnsafePointer<Float>, into x: UnsafeMutablePointer<Float>, _ view: StridedView) {
        forEachRow(view) { position, target, length, step in
            if step == 1 {
                (x + target).update(from: y + position, count: length)
            } else {
                for k in 0..<length { x[target + k * step] = y[position + k] }
            }
        }
    }

    /// `body(position, source, length, step)` for each innermost run of the view: `length` values
    /// written from `position` on, read from `source` by `step`.
    @inline(__always)
    private static func forEachRow(_ view: StridedView, _ body: (Int, Int, Int, Int) -> Void) {
        if view.shape.contains(0) { return }
        let (shape, strides) = view.coalesced()
        guard let length = shape.last, let step = strides.last else {
            body(0, view.offset, 1, 1)
            return
        }
        let outerRank = shape.count - 1
        let rows = shape[..<outerRank].reduce(1, *)
        var index = [Int](repeating: 0, count: outerRank)
        var source = view.offset, position = 0
        for _ in 0..<rows {
            body(position, source, length, step)
            position += length
            var d = outerRank - 1
            while d >= 0 {
                index[d] += 1
                source += strides[d]
                if index[d] < shape[d] { break }
                source -= strides[d] * shape[d]
                index[d] = 0
                d -= 1
            }
        }
    }

    // MARK: Rearrangements

    /// An error unless the product of `factors` (a size of 0 counted as 1) fits an `Int`: every
    /// size, stride and count a rearrangement makes of them is such a product, so none overflows,
    /// whatever block sizes a file gives.
    static func checkFactors(_ factors: [Int], _ what: @autoclosure () -> String) throws(LayoutError) {
        guard checkedProduct(factors.map { max($0, 1) }) != nil else { throw LayoutError("\(what()) makes sizes too large to count") }
    }

    /// An output of `shape` whose row-major values are the input's read through `view`.
    struct Rearrangement: Equatable, Sendable {
        let shape: [Int]
        let view: StridedView
    }

    /// Channels into space, `[n, C·b², H, W]` → `[n, C, H·b, W·b]`. Channel `(c, i, j)` — CRD order,
    /// PyTorch's `PixelShuffle` and Core ML's `pixel_shuffle` — or `(i, j, c)` — DCR order,
    /// TensorFlow's `depth_to_space` and Core ML's `depth_to_space` — goes to row `h·b + i`,
    /// column `w·b + j`.
    static func depthToSpace(_ shape: [Int], block b: Int, channelsFirst: Bool) throws(LayoutError) -> Rearrangement {
        guard shape.count == 4, b >= 1, shape[1] % (b * b) == 0 else {
            throw LayoutError("a block of \(b) does not fit input \(shape) (rank 4, channels a multiple of \(b)²)")
        }
        let (n, c, h, w) = (shape[0], shape[1] / (b * b), shape[2], shape[3])
        try checkFactors([n, c, h, b, w, b], "a block of \(b) on input \(shape)")
        let plane = h * w
        // Strides of the input's channel split into (c, i, j) or (i, j, c).
        let (sc, si, sj) = channelsFirst ? (b * b * plane, b * plane, plane) : (plane, b * c * plane, c * plane)
        // Output order [n, c, h, i, w, j].
        let view = StridedView(shape: [n, c, h, b, w, b], strides: [c * b * b * plane, sc, w, si, 1, sj], offset: 0)
        return Rearrangement(shape: [n, c, h * b, w * b], view: view)
    }

    /// Space into channels, the inverse of ``depthToSpace(_:block:channelsFirst:)``:
    /// `[n, C, H·b, W·b]` → `[n, C·b², H, W]`.
    static func spaceToDepth(_ shape: [Int], block b: Int, channelsFirst: Bool) throws(LayoutError) -> Rearrangement {
        guard shape.count == 4, b >= 1, shape[2] % b == 0, shape[3] % b == 0 else {
            throw LayoutError("a block of \(b) does not fit input \(shape) (rank 4, height and width multiples of \(b))")
        }
        let (n, c, height, width) = (shape[0], shape[1], shape[2], shape[3])
        let (h, w) = (height / b, width / b)
        try checkFactors([n, c, h, b, w, b], "a block of \(b) on input \(shape)")
        // The input as [n, c, h, i, w, j].
        let strides = [c * height * width, height * width, b * width, width, b, 1]
        let source = StridedView(shape: [n, c, h, b, w, b], strides: strides, offset: 0)
        // Output channel order (c, i, j) or (i, j, c), then h, w.
        let view = source.permuted(channelsFirst ? [0, 1, 3, 5, 2, 4] : [0, 3, 5, 1, 2, 4])
        return Rearrangement(shape: [n, c * b * b, h, w], view: view)
    }

    /// Space into batch (TensorFlow's `space_to_batch` of an NCHW tensor already padded):
    /// `[n, C, H·b₀, W·b₁]` → `[b₀·b₁·n, C, H, W]`, output batch `(i·b₁ + j)·n + k` holding
    /// `x[k, c, h·b₀ + i, w·b₁ + j]`.
    static func spaceToBatch(_ shape: [Int], block: [Int]) throws(LayoutError) -> Rearrangement {
        guard shape.count == 4, block.count == 2, block.allSatisfy({ $0 >= 1 }), shape[2] % block[0] == 0, shape[3] % block[1] == 0 else {
            throw LayoutError("block \(block) does not fit padded input \(shape) (rank 4, height and width multiples of the block)")
        }
        let (n, c, height, width) = (shape[0], shape[1], shape[2], shape[3])
        let (b0, b1) = (block[0], block[1])
        let (h, w) = (height / b0, width / b1)
        try checkFactors([b0, b1, n, c, h, w], "block \(block) on input \(shape)")
        // Output order [i, j, n, c, h, w].
        let view = StridedView(shape: [b0, b1, n, c, h, w], strides: [width, 1, c * height * width, height * width, b0 * width, b1], offset: 0)
        return Rearrangement(shape: [b0 * b1 * n, c, h, w], view: view)
    }

    /// Batch into space, the inverse of ``spaceToBatch(_:block:)`` (before any crop):
    /// `[b₀·b₁·n, C, H, W]` → `[n, C, H·b₀, W·b₁]`.
    static func batchToSpace(_ shape: [Int], block: [Int]) throws(LayoutError) -> Rearrangement {
        guard shape.count == 4, block.count == 2, block.allSatisfy({ $0 >= 1 }), shape[0] % (block[0] * block[1]) == 0 else {
            throw LayoutError("block \(block) does not fit input \(shape) (rank 4, batch a multiple of the block's area)")
        }
        let (b0, b1) = (block[0], block[1])
        let (n, c, h, w) = (shape[0] / (b0 * b1), shape[1], shape[2], shape[3])
        try checkFactors([n, c, h, b0, w, b1], "block \(block) on input \(shape)")
        let example = c * h * w
        // Output order [n, c, h, i, w, j]; input batch (i·b₁ + j)·n + k.
        let view = StridedView(shape: [n, c, h, b0, w, b1], strides: [example, h * w, w, b1 * n * example, 1, n * example], offset: 0)
        return Rearrangement(shape: [n, c, h * b0, w * b1], view: view)
    }

    /// The input read backwards along each of `axes` (resolved, in range).
    static func reverse(_ shape: [Int], axes: [Int]) -> Rearrangement {
        var view = StridedView(shape)
        for axis in Set(axes) where shape[axis] > 0 {
            view.offset += (shape[axis] - 1) * view.strides[axis]
            view.strides[axis] = -view.strides[axis]
        }
        return Rearrangement(shape: shape, view: view)
    }

    /// Every window of `size` values `stride` apart along `axis` (resolved): that dimension of
    /// length `n` becomes two, `(n - size) / stride + 1` windows of `size` values.
    static func slidingWindows(_ shape: [Int], axis: Int, size: Int, stride: Int) throws(LayoutError) -> Rearrangement {
        guard axis >= 0, axis < shape.count, size >= 1, stride >= 1, size <= shape[axis] else {
            throw LayoutError("windows of \(size) values \(stride) apart do not fit axis \(axis) of \(shape)")
        }
        let strides = Broadcast.strides(shape)
        let windows = (shape[axis] - size) / stride + 1
        let outShape = Array(shape[..<axis]) + [windows, size] + Array(shape[(axis + 1)...])
        let outStrides = Array(strides[..<axis]) + [stride * strides[axis], strides[axis]] + Array(strides[(axis + 1)...])
        return Rearrangement(shape: outShape, view: StridedView(shape: outShape, strides: outStrides, offset: 0))
    }

    /// The input's axes in the order `permutation` (a permutation of `0..<rank`) names.
    static func transpose(_ shape: [Int], _ permutation: [Int]) -> Rearrangement {
        let view = StridedView(shape).permuted(permutation)
        return Rearrangement(shape: view.shape, view: view)
    }
}
