import _OpenCoreMLKernels

/// Comparisons and logical operations (booleans held as 1 and 0, any non-zero value read as true,
/// with NumPy broadcasting, by the C kernels) and `select`, which picks from `a` where `cond` is
/// true and from `b` elsewhere, all three broadcast together.
extension MILOperations {
    static let comparisons: [String: Make] = [
        "equal": binary(OCM_BINARY_EQUAL), "not_equal": binary(OCM_BINARY_NOT_EQUAL),
        "greater": binary(OCM_BINARY_GREATER), "greater_equal": binary(OCM_BINARY_GREATER_EQUAL),
        "less": binary(OCM_BINARY_LESS), "less_equal": binary(OCM_BINARY_LESS_EQUAL),
        "logical_and": binary(OCM_BINARY_AND), "logical_or": binary(OCM_BINARY_OR),
        "logical_xor": binary(OCM_BINARY_XOR), "logical_not": function(.logicalNot),
        "select": select,
    ]

    static let select: Make = { arguments, outputs, context in
        let cond = try argument(arguments, "cond", context), a = try argument(arguments, "a", context), b = try argument(arguments, "b", context)
        return { slots in
            let c = fetch(cond, slots), x = fetch(a, slots), y = fetch(b, slots)
            let broadcast = try broadcasting([c.shape, x.shape, y.shape], context)
            var values = try slots.unfilledBuffer(broadcast.shape, context)
            if !values.isEmpty {
                c.values.withUnsafeBufferPointer { cp in
                    x.values.withUnsafeBufferPointer { xp in
                        y.values.withUnsafeBufferPointer { yp in
                            values.withUnsafeMutableBufferPointer {
                                broadcast.select(cp.baseAddress!, xp.baseAddress!, yp.baseAddress!, into: $0.baseAddress!)
                            }
                        }
                    }
                }
            }
            slots[outputs[0]] = MILTensor(shape: broadcast.shape, values: values)
        }
    }
}
