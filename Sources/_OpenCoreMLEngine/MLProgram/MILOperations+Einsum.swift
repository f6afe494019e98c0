import _OpenCoreMLKernels

/// `einsum` in the one form the operation set defines: `values` (x, y) of rank 4, x `[B, C, H, W1]`
/// and y `[B, W1, H, W2]` giving `[B, C, H, W2]` (`"nchw,nwhu->nchu"`, letters renamed as one
/// likes), or of rank 3 without B (`"chw,whr->chr"`); B and H broadcast (one of the two may be 1).
/// Each (b, h) is one matrix product, `C × W1` by `W1 × W2`, read in place through the GEMM's
/// leading dimensions.
extension MILOperations {
    static let einsum: Make = { arguments, outputs, context in
        guard let values = arguments["values"], values.count == 2 else { throw context.fail("einsum needs 'values' of two tensors") }
        guard let equation = try constantString(arguments, "equation", context) else { throw context.fail("input 'equation' is missing") }
        let rank = try einsumRank(equation, context)
        let (xArgument, yArgument) = (values[0], values[1])
        return { slots in
            let x = fetch(xArgument, slots), y = fetch(yArgument, slots)
            guard x.shape.count == rank, y.shape.count == rank else {
                throw context.fail("einsum '\(equation)' needs two rank-\(rank) inputs, not \(x.shape) and \(y.shape)")
            }
            // As rank 4, B = 1 for rank 3.
            let xs = rank == 4 ? x.shape : [1] + x.shape, ys = rank == 4 ? y.shape : [1] + y.shape
            let (c, w1, w2) = (xs[1], xs[3], ys[3])
            func joint(_ a: Int, _ b: Int) -> Int? { a == b || b == 1 ? a : a == 1 ? b : nil }
            guard ys[1] == w1, let batch = joint(xs[0], ys[0]), let h = joint(xs[2], ys[2]) else {
                throw context.fail("einsum '\(equation)': \(x.shape) and \(y.shape) do not fit (x's last size is y's third from last; B and H equal or 1)")
            }
            let shape = rank == 4 ? [batch, c, h, w2] : [c, h, w2]
            var result = try slots.buffer(shape, context)
            try slots.countMultiplyAdds(batch, h, c, w1, w2, context: context)
            if !result.isEmpty, w1 > 0 {
                x.values.withUnsafeBufferPointer { xp in
                    y.values.withUnsafeBufferPointer { yp in
                        result.withUnsafeMutableBufferPointer { out in
                            for b in 0..<batch {
                                for row in 0..<h {
                                    let xb = (xs[0] == 1 ? 0 : b) * c * xs[2] * w1 + (xs[2] == 1 ? 0 : row) * w1
                                    let yb = (ys[0] == 1 ? 0 : b) * w1 * ys[2] * w2 + (ys[2] == 1 ? 0 : row) * w2
                                    ocm_sgemm(false, false, Int32(c), Int32(w2), Int32(w1), 1, xp.baseAddress! + xb, Int32(xs[2] * w1),
                                              yp.baseAddress! + yb, Int32(ys[2] * w2), 0, out.baseAddress! + b * c * h * w2 + row * w2, Int32(h * w2))
                                }
                            }
                        }
                    }
                }
            }
            slots[outputs[0]] = MILTensor(shape: shape, values: result)
        }
    }

    /// The rank of `equation` when it is the supported form (letters by their first appearance:
    /// `abcd,adce->abce` or `abc,cbd->abd`), an error naming it otherwise.
    static func einsumRank(_ equation: String, _ context: OperationContext) throws -> Int {
        let text = equation.filter { !$0.isWhitespace }
        let sides = text.components(separatedBy: "->")
        let operands = sides.first?.components(separatedBy: ",") ?? []
        if sides.count == 2, operands.count == 2 {
            var numbers: [Character: Int] = [:]
            func number(_ term: String) -> [Int] {
                term.map { letter in
                    if let n = numbers[letter] { return n }
                    numbers[letter] = numbers.count
                    return numbers.count - 1
                }
            }
            let (a, b, out) = (number(operands[0]), number(operands[1]), number(sides[1]))
            if a == [0, 1, 2, 3], b == [0, 3, 2, 4], out == [0, 1, 2, 4] { return 4 }
            if a == [0, 1, 2], b == [2, 1, 3], out == [0, 1, 3] { return 3 }
        }
        throw context.fail("einsum equation '\(equation)' is not supported (only \"nchw,nwhu->nchu\" and \"chw,whr->chr\", letters renamed)")
    }
}
