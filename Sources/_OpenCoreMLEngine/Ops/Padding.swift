import _OpenCoreMLKernels

/// Padding of a row-major tensor, written once for both interpreters: the classic `padding` layer
/// (H and W of every channel plane) and the ML Program `pad` (any of the last axes).
///
/// Each axis is widened by `before[d]` values before and `after[d]` after: a constant, the mirror
/// image without the edge value (`reflect`; needs before and after smaller than the axis), or the
/// edge value repeated (`replicate`; needs a non-empty axis). The forward pass copies whole rows
/// (the innermost axis) with `memcpy` and writes only the padded ends value by value; the leading
/// axes that are not padded are split over the threads.
struct Padding: Sendable {
    enum Mode: Equatable, Sendable { case constant(Float), reflect, replicate }

    let mode: Mode
    let inputShape: [Int]
    let before: [Int], after: [Int]
    let outputShape: [Int]
    /// Leading axes without padding, multiplied: the blocks the threads share.
    private let blocks: Int
    /// The first padded axis (`rank` when none is, `rank - 1` at most otherwise).
    private let firstPadded: Int
    private let inStrides: [Int], outStrides: [Int]

    /// Padding of `inputShape` by `before` and `after` (one count each per axis, 0 or more); the
    /// reason as a message when `mode` cannot pad an axis that size.
    init(_ mode: Mode, inputShape: [Int], before: [Int], after: [Int]) throws(PaddingError) {
        let rank = inputShape.count
        guard before.count == rank, after.count == rank, (before + after).allSatisfy({ $0 >= 0 }) else {
            throw PaddingError("padding \(before) and \(after) must hold a count of 0 or more for each of the \(rank) axes")
        }
        for d in 0..<rank where before[d] + after[d] > 0 {
            let n = inputShape[d]
            let fits = switch mode {
            case .constant: true
            case .replicate: n > 0
            case .reflect: before[d] < n && after[d] < n
            }
            guard fits else {
                throw PaddingError("\(mode) padding of \(before[d]) and \(after[d]) does not fit dimension \(d) of \(inputShape)")
            }
        }
        (self.mode, self.inputShape, self.before, self.after) = (mode, inputShape, before, after)
        outputShape = (0..<rank).map { inputShape[$0] + before[$0] + after[$0] }
        let firstPadded = (0..<rank).first { before[$0] + after[$0] > 0 } ?? rank
        self.firstPadded = min(firstPadded, max(rank - 1, 0))
        blocks = inputShape[..<self.firstPadded].reduce(1, *)
        inStrides = Broadcast.strides(inputShape)
        outStrides = Broadcast.strides(outputShape)
    }

    /// The input index an output index `index` of axis `d` copies (counted from the input's start,
    /// so negative or past the end in the padding), or nil for the constant.
    private func source(_ index: Int, axis d: Int) -> Int? {
        let i = index - before[d], n = inputShape[d]
        if i >= 0 && i < n { return i }
        switch mode {
        case .constant: return nil
        case .replicate: return i < 0 ? 0 : n - 1
        case .reflect: return i < 0 ? -i : 2 * (n - 1) - i
        }
    }

    /// Pads `x` (`inputShape`) into `y` (`outputShape`).
    func forward(_ x: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>) {
        let rank = inputShape.count
        guard rank > 0 else {
            y.pointee = x.pointee
            return
        }
        let (inBlock, outBlock) = (firstPadded == 0 ? inputShape.reduce(1, *) : inStrides[firstPadded - 1],
                                   firstPadded == 0 ? outputShape.reduce(1, *) : outStrides[firstPadded - 1])
        guard outBlock > 0 else { return }
        // Big enough to be worth the threads: a few blocks of at least 32 K values in all.
        let chunks = blocks * outBlock >= 1 << 15 ? chunkCount(blocks) : 1
        parallelChunks(blocks, chunks: chunks) { _, range in
            for block in range { pad(axis: firstPadded, x + block * inBlock, y + block * outBlock) }
        }
    }

    /// Pads the sub-block of axes `d...` at `x` into `y`.
    private func pad(axis d: Int, _ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>) {
        let last = inputShape.count - 1
        if d == last {
            padRow(x, y)
            return
        }
        for index in 0..<outputShape[d] {
            let out = y + index * outStrides[d]
            if let i = source(index, axis: d) {
                pad(axis: d + 1, x + i * inStrides[d], out)
            } else if case .constant(let value) = mode {
                out.update(repeating: value, count: outStrides[d])
            }
        }
    }

    /// One row of the innermost axis: the input row copied whole, then the ends.
    private func padRow(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>) {
        let d = inputShape.count - 1
        let (n, head, tail) = (inputShape[d], before[d], after[d])
        (y + head).update(from: x, count: n)
        switch mode {
        case .constant(let value):
            y.update(repeating: value, count: head)
            (y + head + n).update(repeating: value, count: tail)
        case .replicate:
            if head > 0 { y.update(repeating: x[0], count: head) }
            if tail > 0 { (y + head + n).update(repeating: x[n - 1], count: tail) }
        case .reflect:
            for i in 0..<head { y[i] = x[head - i] }
            for i in 0..<tail { y[head + n + i] = x[n - 2 - i] }
        }
    }

    /// The input's gradient from the output's: each output position's gradient added into the
    /// input position it copied (the constant's go nowhere). `dx` is overwritten.
    func backward(_ dy: UnsafePointer<Float>, into dx: UnsafeMutablePointer<Float>) {
        let count = inputShape.reduce(1, *)
        dx.update(repeating: 0, count: count)
        guard !inputShape.isEmpty else {
            dx.pointee = dy.pointee
            return
        }
        let (inBlock, outBlock) = (firstPadded == 0 ? count : inStrides[firstPadded - 1], firstPadded == 0 ? outputShape.reduce(1, *) : outStrides[firstPadded - 1])
        for block in 0..<blocks {
            gather(axis: firstPadded, dy + block * outBlock, dx + block * inBlock)
        }
    }

    /// Adds the sub-block of axes `d...` of `dy` into `dx`.
    private func gather(axis d: Int, _ dy: UnsafePointer<Float>, _ dx: UnsafeMutablePointer<Float>) {
        let last = inputShape.count - 1
        for index in 0..<outputShape[d] {
            guard let i = source(index, axis: d) else { continue }
            if d == last {
                dx[i] += dy[index]
            } else {
                gather(axis: d + 1, dy + index * outStrides[d], dx + i * inStrides[d])
            }
        }
    }
}

/// Why a padding does not fit the tensor it pads.
struct PaddingError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
