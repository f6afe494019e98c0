/// A fitted linear regression: `w·x + b`, in the units of the original features.
package struct LinearRegressionModel: Sendable, Equatable {
    package let weights: [Double]
    package let intercept: Double

    package init(weights: [Double], intercept: Double) {
        self.weights = weights
        self.intercept = intercept
    }

    package var featureCount: Int { weights.count }

    /// The prediction for each row of `features` (N×D, row-major); throws when the values are not whole rows.
    package func predict(_ features: [Double]) throws -> [Double] {
        let d = weights.count
        guard d > 0, features.count % d == 0 else {
            throw SolverError("LinearRegressionModel", "\(features.count) feature values are not whole rows of \(d)")
        }
        return stride(from: 0, to: features.count, by: d).map { base in
            var sum = intercept
            for j in 0..<d { sum += weights[j] * features[base + j] }
            return sum
        }
    }
}
