/// Rows of weights and one offset per output: yⱼ = wⱼ · x + bⱼ (a GLM's scores before its link).
package struct LinearModel: Sendable {
    /// outputs × width, row-major.
    package let weights: [Double]
    package let offsets: [Double]
    /// How many values each input row has.
    package let width: Int

    package var outputCount: Int { offsets.count }

    /// Refuses rows of different lengths and a row count other than the offsets'.
    package init(rows: [[Double]], offsets: [Double]) throws(EngineError) {
        guard rows.count == offsets.count else {
            throw EngineError("", "there are \(rows.count) weight rows but \(offsets.count) offsets")
        }
        let width = rows.first?.count ?? 0
        var weights: [Double] = []
        weights.reserveCapacity(rows.count * width)
        for (number, row) in rows.enumerated() {
            guard row.count == width else {
                throw EngineError("", "weight row \(number) has \(row.count) values; row 0 has \(width)")
            }
            weights.append(contentsOf: row)
        }
        self.weights = weights
        self.offsets = offsets
        self.width = width
    }

    /// The scores of `count` rows of `width` values each, one row of `outputCount` scores per
    /// input row.
    package func scores(_ rows: UnsafeBufferPointer<Double>, count: Int) -> [Double] {
        precondition(rows.count >= count * width, "fewer values than rows × width")
        let outputs = outputCount
        var scores = [Double](repeating: 0, count: count * outputs)
        weights.withUnsafeBufferPointer { weights in
            scores.withUnsafeMutableBufferPointer { scores in
                for example in 0..<count {
                    let x = rows.baseAddress! + example * width
                    for output in 0..<outputs {
                        let w = weights.baseAddress! + output * width
                        var sum = 0.0
                        for column in 0..<width { sum += w[column] * x[column] }
                        scores[example * outputs + output] = sum + offsets[output]
                    }
                }
            }
        }
        return scores
    }
}
