/// A support vector regressor: f(x) = Σᵢ αᵢ·K(x, svᵢ) − ρ.
package struct SupportVectorRegression: Sendable {
    package let coefficients: [Double]
    package let rho: Double

    package init(coefficients: [Double], rho: Double) {
        self.coefficients = coefficients
        self.rho = rho
    }

    /// f(x) for one example's kernel values (one per support vector).
    package func value(kernelRow k: UnsafeBufferPointer<Double>) -> Double {
        precondition(k.count >= coefficients.count, "one kernel value per support vector")
        var sum = 0.0
        for (index, alpha) in coefficients.enumerated() { sum += alpha * k[index] }
        return sum - rho
    }
}
