/// Comparisons and logical operations (booleans held as 1 and 0, any non-zero value read as true,
/// with NumPy broadcasting) and `select`, which picks from `a` where `cond` is true and from `b`
/// elsewhere, all three broadcast together.
extension MILOperations {
    static let comparisons: [String: Make] = [
        "equal": binary { $0 == $1 ? 1 : 0 }, "not_equal": binary { $0 != $1 ? 1 : 0 },
        "greater": binary { $0 > $1 ? 1 : 0 }, "greater_equal": binary { $0 >= $1 ? 1 : 0 },
        "less": binary { $0 < $1 ? 1 : 0 }, "less_equal": binary { $0 <= $1 ? 1 : 0 },
        "logical_and": binary { $0 != 0 && $1 != 0 ? 1 : 0 }, "logical_or": binary { $0 != 0 || $1 != 0 ? 1 : 0 },
        "logical_xor": binary { ($0 != 0) != ($1 != 0) ? 1 : 0 }, "logical_not": unary { $0 == 0 ? 1 : 0 },
        "select": select,
    ]

    static let select: Make = { arguments, outputs, context in
        let cond = try argument(arguments, "cond", context), a = try argument(arguments, "a", context), b = try argument(arguments, "b", context)
        return { slots in
            let inputs = [fetch(cond, slots), fetch(a, slots), fetch(b, slots)]
            let (shape, strides) = try broadcast(inputs.map(\.shape), context)
            var values = try slots.buffer(shape, context)
            var index = [Int](repeating: 0, count: shape.count)
            for position in values.indices {
                var offsets = (0, 0, 0)
                for d in index.indices {
                    offsets.0 += index[d] * strides[0][d]
                    offsets.1 += index[d] * strides[1][d]
                    offsets.2 += index[d] * strides[2][d]
                }
                values[position] = inputs[0].values[offsets.0] != 0 ? inputs[1].values[offsets.1] : inputs[2].values[offsets.2]
                advance(&index, within: shape)
            }
            slots[outputs[0]] = MILTensor(shape: shape, values: values)
        }
    }
}
