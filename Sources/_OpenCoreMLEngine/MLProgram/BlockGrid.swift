/// A tensor cut into equal blocks along every dimension, as block-wise quantization (a scale per
/// block) and grouped palettization (a look-up table per block) cut weights: which block each
/// element belongs to.
struct BlockGrid {
    /// The tensor's shape, and how many blocks each dimension is cut into.
    let shape: [Int]
    let blocks: [Int]

    /// - Throws: the error `fail` makes, when the ranks differ or a dimension is not a whole
    ///   number of blocks.
    init(shape: [Int], blocks: [Int], fail: (String) -> EngineError) throws {
        guard shape.count == blocks.count else {
            throw fail("\(blocks.count) block dimensions for a tensor of rank \(shape.count) (shape \(shape))")
        }
        for (size, count) in zip(shape, blocks) where count <= 0 || size % count != 0 {
            throw fail("shape \(shape) does not divide into \(blocks) blocks")
        }
        self.shape = shape
        self.blocks = blocks
    }

    /// The number of blocks.
    var blockCount: Int { blocks.reduce(1, *) }

    /// Calls `body` with each element's row-major index and its block's row-major index, in order.
    func forEach(_ body: (_ element: Int, _ block: Int) throws -> Void) rethrows {
        let count = shape.reduce(1, *)
        guard count > 0 else { return }
        let rank = shape.count
        let blockSizes = zip(shape, blocks).map { $0 / $1 }
        var blockStrides = [Int](repeating: 1, count: rank)
        for d in stride(from: rank - 2, through: 0, by: -1) { blockStrides[d] = blockStrides[d + 1] * blocks[d + 1] }
        var index = [Int](repeating: 0, count: rank)
        for element in 0..<count {
            var block = 0
            for d in 0..<rank { block += index[d] / blockSizes[d] * blockStrides[d] }
            try body(element, block)
            var d = rank - 1
            while d >= 0 {
                index[d] += 1
                if index[d] < shape[d] { break }
                index[d] = 0
                d -= 1
            }
        }
    }
}
