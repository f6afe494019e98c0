/// Operations that make tensors from shapes and numbers, as loops need them: `shape` (a tensor's
/// dimensions), `fill` (a computed or constant shape filled with `value`), `fill_like` (a tensor's
/// shape filled with `value`), `range_1d` (NumPy's `arange(start, end, step)`) and `band_part` (a
/// band of the innermost matrices kept, the rest zero: the masks of attention over a length known
/// only at run time). Every size is checked against the memory limit before anything is allocated.
extension MILOperations {
    static let creation: [String: Make] = [
        "shape": shape, "fill": fill, "fill_like": fillLike, "range_1d": range1D, "band_part": bandPart,
    ]

    static let shape: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context)
        return { slots in
            let input = fetch(x, slots)
            slots[outputs[0]] = MILTensor(shape: [input.shape.count], values: input.shape.map(Float.init))
        }
    }

    static let fill: Make = { arguments, outputs, context in
        guard let shape = try IntegerParameter(arguments, "shape", context) else { throw context.fail("fill needs shape") }
        let value = try arguments["value"].map { _ in try argument(arguments, "value", context) }
        return { slots in
            let sizes = try shape.values("shape", slots, context)
            let filler = try value.map { try scalar(fetch($0, slots), "value", context) } ?? 0
            var values = try slots.buffer(sizes, context)
            for i in values.indices { values[i] = filler }
            slots[outputs[0]] = MILTensor(shape: sizes, values: values)
        }
    }

    static let fillLike: Make = { arguments, outputs, context in
        let reference = try argument(arguments, "ref_tensor", context)
        let value = try arguments["value"].map { _ in try argument(arguments, "value", context) }
        return { slots in
            let shape = fetch(reference, slots).shape
            let filler = try value.map { try scalar(fetch($0, slots), "value", context) } ?? 0
            var values = try slots.unfilledBuffer(shape, context)
            values.withUnsafeMutableBufferPointer { $0.update(repeating: filler) }
            slots[outputs[0]] = MILTensor(shape: shape, values: values)
        }
    }

    /// `start, start + step, …` while short of `end` (past it, for a negative step).
    static let range1D: Make = { arguments, outputs, context in
        let start = try argument(arguments, "start", context), end = try argument(arguments, "end", context)
        let step = try argument(arguments, "step", context)
        return { slots in
            let first = try scalar(fetch(start, slots), "start", context), last = try scalar(fetch(end, slots), "end", context)
            let increment = try scalar(fetch(step, slots), "step", context)
            guard increment != 0, increment.isFinite, first.isFinite, last.isFinite else {
                throw context.fail("range_1d from \(first) to \(last) by \(increment) is not a finite range")
            }
            let steps = ((Double(last) - Double(first)) / Double(increment)).rounded(.up)
            guard steps <= Double(context.limit) else {
                throw context.fail("range_1d from \(first) to \(last) by \(increment) holds more than the memory limit allows (\(context.limit) values)")
            }
            let count = steps > 0 ? Int(steps) : 0  // a range going the other way is empty, however far (Int(−1e60) traps)
            var values = try slots.unfilledBuffer([count], context)
            for index in 0..<count { values[index] = first + Float(index) * increment }
            slots[outputs[0]] = MILTensor(shape: [count], values: values)
        }
    }

    /// `band_part(x, lower, upper)`: in each innermost matrix, element `[m, n]` kept where
    /// `m - n <= lower` and `n - m <= upper` (a negative count keeps the whole triangle on its
    /// side; both default to -1), zero elsewhere.
    static let bandPart: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context)
        let lower = try constantInts(arguments, "lower", context)?.first ?? -1
        let upper = try constantInts(arguments, "upper", context)?.first ?? -1
        return { slots in
            let input = fetch(x, slots)
            guard input.shape.count >= 2 else { throw context.fail("band_part needs a tensor of rank 2 or more, not \(input.shape)") }
            let (rows, columns) = (input.shape[input.shape.count - 2], input.shape[input.shape.count - 1])
            var values = try slots.unfilledBuffer(input.shape, context)
            if input.count > 0 {
                input.values.withUnsafeBufferPointer { x in
                    values.withUnsafeMutableBufferPointer { y in
                        for matrix in 0..<(input.count / (rows * columns)) {
                            for m in 0..<rows {
                                let row = (matrix * rows + m) * columns
                                // Columns m - lower ... m + upper, clipped to the row.
                                let first = lower < 0 ? 0 : min(max(m - lower, 0), columns)
                                let last = upper < 0 ? columns : min(max(m + upper + 1, first), columns)
                                y.baseAddress!.advanced(by: row).update(repeating: 0, count: first)
                                y.baseAddress!.advanced(by: row + first).update(from: x.baseAddress!.advanced(by: row + first), count: last - first)
                                y.baseAddress!.advanced(by: row + last).update(repeating: 0, count: columns - last)
                            }
                        }
                    }
                }
            }
            slots[outputs[0]] = MILTensor(shape: input.shape, values: values)
        }
    }

    /// The single value of a scalar (or one-value) input.
    static func scalar(_ tensor: MILTensor, _ name: String, _ context: OperationContext) throws -> Float {
        guard tensor.count == 1 else { throw context.fail("input '\(name)' holds \(tensor.count) values (shape \(tensor.shape)), not one") }
        return tensor.values[0]
    }
}
