/// Sorting along a constant axis: `argsort` (the indices that sort `x`, descending unless
/// `ascending`) and `topk` (the `k` largest values, or smallest when `ascending`, and their
/// indices unless iOS 16's `return_indices` is false; always sorted, which its `sort` allows).
/// Equal values keep their order (a stable sort), as NumPy's stable sort does.
extension MILOperations {
    static let sorting: [String: Make] = ["argsort": argsort, "topk": topk]

    /// For each line of `input` along `axis`, its positions sorted by value (stable).
    static func sortedLines(_ input: MILTensor, axis: Int, ascending: Bool) -> (lines: [[Int]], outer: Int, inner: Int) {
        let n = input.shape[axis], outer = input.shape[..<axis].reduce(1, *), inner = input.shape[(axis + 1)...].reduce(1, *)
        var lines: [[Int]] = []
        lines.reserveCapacity(outer * inner)
        for o in 0..<outer {
            for i in 0..<inner {
                let value = { (k: Int) in input.values[(o * n + k) * inner + i] }
                lines.append(Array(0..<n).sorted { a, b in
                    let (x, y) = (value(a), value(b))
                    if x != y { return ascending ? x < y : x > y }
                    return a < b
                })
            }
        }
        return (lines, outer, inner)
    }

    static let argsort: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context)
        let axisValue = try constantInts(arguments, "axis", context)?.first ?? -1
        let ascending = (try constantInts(arguments, "ascending", context)?.first ?? 0) != 0
        return { slots in
            let input = fetch(x, slots)
            let axis = try axis(axisValue, rank: input.shape.count, context)
            let (lines, outer, inner) = sortedLines(input, axis: axis, ascending: ascending)
            let n = input.shape[axis]
            var values = try slots.unfilledBuffer(input.shape, context)
            for o in 0..<outer {
                for i in 0..<inner {
                    for (k, index) in lines[o * inner + i].enumerated() { values[(o * n + k) * inner + i] = Float(index) }
                }
            }
            slots[outputs[0]] = MILTensor(shape: input.shape, values: values)
        }
    }

    static let topk: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context)
        // A computed k (beyond MIL, where k is constant) serves classic topK layers that take K as
        // their second input.
        let kParameter = try IntegerParameter(arguments, "k", context)
        let axisValue = try constantInts(arguments, "axis", context)?.first ?? -1
        let ascending = (try constantInts(arguments, "ascending", context)?.first ?? 0) != 0
        let returnsIndices = (try constantInts(arguments, "return_indices", context)?.first ?? 1) != 0
        guard outputs.count == (returnsIndices ? 2 : 1) else {
            throw context.fail("\(outputs.count) outputs; topk has two (values, indices), or one when return_indices is false")
        }
        return { slots in
            let input = fetch(x, slots)
            let k = try kParameter?.values("k", slots, context).first ?? 1
            let axis = try axis(axisValue, rank: input.shape.count, context)
            let n = input.shape[axis]
            guard k >= 0 && k <= n else { throw context.fail("k \(k) is out of range for dimension \(n) of \(input.shape)") }
            let (lines, outer, inner) = sortedLines(input, axis: axis, ascending: ascending)
            var shape = input.shape
            shape[axis] = k
            var values = try slots.buffer(shape, context), indices = values
            for o in 0..<outer {
                for i in 0..<inner {
                    for (rank, index) in lines[o * inner + i].prefix(k).enumerated() {
                        values[(o * k + rank) * inner + i] = input.values[(o * n + index) * inner + i]
                        indices[(o * k + rank) * inner + i] = Float(index)
                    }
                }
            }
            slots[outputs[0]] = MILTensor(shape: shape, values: values)
            if outputs.count == 2 { slots[outputs[1]] = MILTensor(shape: shape, values: indices) }
        }
    }
}
