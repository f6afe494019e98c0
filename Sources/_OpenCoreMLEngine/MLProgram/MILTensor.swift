/// A tensor while an ML Program runs: its shape and its values as Float (every numeric type is
/// computed in float32: float16 and 8-bit weights are widened when the program is compiled).
package struct MILTensor: Equatable, Sendable {
    package var shape: [Int]
    package var values: [Float]

    package init(shape: [Int], values: [Float]) {
        precondition(shape.reduce(1, *) == values.count, "shape \(shape) does not hold \(values.count) values")
        self.shape = shape
        self.values = values
    }

    package var count: Int { values.count }

    /// The number of values `shape` holds, checked: no negative size, no overflow, at most
    /// `limit` values. A zero size does not excuse the others: the product of the sizes that are
    /// not zero must stay within `limit` too, so that every product of a tensor's sizes (the
    /// strides, the rows before and after an axis) can be computed without overflow.
    static func checkedCount(_ shape: [Int], limit: Int, _ place: String) throws -> Int {
        var span = 1
        for size in shape {
            guard size >= 0 else { throw EngineError("\(place): negative size in shape \(shape)") }
            let (product, overflow) = span.multipliedReportingOverflow(by: max(size, 1))
            guard !overflow, product <= limit else {
                throw EngineError("\(place): shape \(shape) holds more than the memory limit allows (\(limit) values)")
            }
            span = product
        }
        return shape.contains(0) ? 0 : span
    }
}

/// What a slot holds while an ML Program runs: a tensor, or a list (``MILList``). Only control
/// flow passes values of either kind on; every other operation reads and writes tensors.
enum MILValue {
    case tensor(MILTensor)
    case list(MILList)
}
