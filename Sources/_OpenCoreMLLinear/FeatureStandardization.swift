/// Per-feature mean and standard deviation of a row-major N×D matrix, for scaling features to zero
/// mean and unit variance as scikit-learn's `StandardScaler` does (population standard deviation;
/// a constant feature keeps scale 1).
package struct FeatureStandardization: Sendable, Equatable {
    package var means: [Double]
    package var scales: [Double]

    /// Measures the rows of `featureCount` values in `features` (float32 or float64; float64 sums). With
    /// `scaling == false` only the means are taken and every scale is 1 (centering alone).
    package init<Value: BinaryFloatingPoint>(features: [Value], featureCount: Int, scaling: Bool = true) {
        let rows = featureCount > 0 ? features.count / featureCount : 0
        var sum = [Double](repeating: 0, count: featureCount)
        features.withUnsafeBufferPointer { x in
            for row in 0..<rows {
                let base = row * featureCount
                for j in 0..<featureCount { sum[j] += Double(x[base + j]) }
            }
        }
        let means = sum.map { rows > 0 ? $0 / Double(rows) : 0 }
        self.means = means
        guard scaling else {
            scales = [Double](repeating: 1, count: featureCount)
            return
        }
        var squares = [Double](repeating: 0, count: featureCount)
        features.withUnsafeBufferPointer { x in
            for row in 0..<rows {
                let base = row * featureCount
                for j in 0..<featureCount {
                    let centered = Double(x[base + j]) - means[j]
                    squares[j] += centered * centered
                }
            }
        }
        scales = squares.map { rows > 0 && $0 > 0 ? ($0 / Double(rows)).squareRoot() : 1 }
    }

    /// `(x − mean) / scale` for every value.
    package func apply<Value: BinaryFloatingPoint>(to features: [Value]) -> [Value] {
        let d = means.count
        let mean = means.map { Value($0) }, inverse = scales.map { Value(1 / $0) }
        var result = features
        result.withUnsafeMutableBufferPointer { x in
            for base in stride(from: 0, to: x.count, by: d) {
                for j in 0..<d { x[base + j] = (x[base + j] - mean[j]) * inverse[j] }
            }
        }
        return result
    }
}
