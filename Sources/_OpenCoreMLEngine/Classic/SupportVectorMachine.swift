import Foundation

/// A support vector machine's kernel, in LIBSVM's parameterization.
package enum SupportVectorKernel: Sendable, Equatable {
    /// K(x, y) = x · y
    case linear
    /// K(x, y) = exp(−γ‖x − y‖²)
    case rbf(gamma: Double)
    /// K(x, y) = (γ x · y + c)^degree
    case polynomial(gamma: Double, c: Double, degree: Int)
    /// K(x, y) = tanh(γ x · y + c)
    case sigmoid(gamma: Double, c: Double)

    /// Whether the kernel reads ‖x − y‖² (otherwise x · y).
    var usesDistance: Bool {
        if case .rbf = self { return true }
        return false
    }

    /// The kernel value from x · y, or from ‖x − y‖² for the RBF kernel.
    func value(_ dotOrDistance: Double) -> Double {
        switch self {
        case .linear: return dotOrDistance
        case .rbf(let gamma): return exp(-gamma * dotOrDistance)
        case .polynomial(let gamma, let c, let degree): return Self.power(gamma * dotOrDistance + c, degree)
        case .sigmoid(let gamma, let c): return tanh(gamma * dotOrDistance + c)
        }
    }

    /// base^exponent by repeated squaring (as LIBSVM's `powi`; 1 for exponent 0).
    static func power(_ base: Double, _ exponent: Int) -> Double {
        var result = 1.0
        var factor = base
        var remaining = exponent
        while remaining > 0 {
            if remaining & 1 == 1 { result *= factor }
            factor *= factor
            remaining >>= 1
        }
        return result
    }
}

/// Support vectors, stored densely (every value) or sparsely (the nonzero values and their columns).
package enum SupportVectors: Sendable {
    /// `count` vectors of `width` values each, row-major.
    case dense(values: [Double], width: Int, count: Int)
    /// Vector v holds `values[starts[v]..<starts[v + 1]]` at 0-based `columns` of the same range.
    case sparse(starts: [Int], columns: [Int], values: [Double])

    package var count: Int {
        switch self {
        case .dense(_, _, let count): return count
        case .sparse(let starts, _, _): return starts.count - 1
        }
    }

    /// The narrowest input row the vectors fit: the dense width, or the largest sparse column + 1.
    package var requiredWidth: Int {
        switch self {
        case .dense(_, let width, _): return width
        case .sparse(_, let columns, _): return (columns.max() ?? -1) + 1
        }
    }
}

/// The part every support vector machine shares: a kernel and the support vectors it compares
/// inputs with.
package struct SupportVectorMachine: Sendable {
    package let kernel: SupportVectorKernel
    package let vectors: SupportVectors

    package init(kernel: SupportVectorKernel, vectors: SupportVectors) {
        self.kernel = kernel
        self.vectors = vectors
    }

    /// K(xₑ, svᵢ) for `count` input rows of `width` values (width ≥ `vectors.requiredWidth`):
    /// `count` rows of `vectors.count` values, row-major. Dense vectors must be exactly `width` wide.
    package func kernelValues(_ rows: UnsafeBufferPointer<Double>, count: Int, width: Int) -> [Double] {
        precondition(rows.count >= count * width && width >= vectors.requiredWidth, "input rows narrower than the support vectors")
        let svCount = vectors.count
        var result = [Double](repeating: 0, count: count * svCount)
        let distance = kernel.usesDistance
        result.withUnsafeMutableBufferPointer { result in
            switch vectors {
            case .dense(let values, let svWidth, _):
                precondition(svWidth == width, "dense support vectors must be as wide as the input")
                values.withUnsafeBufferPointer { values in
                    for example in 0..<count {
                        let x = rows.baseAddress! + example * width
                        let out = result.baseAddress! + example * svCount
                        for vector in 0..<svCount {
                            let v = values.baseAddress! + vector * width
                            var sum = 0.0
                            if distance {
                                for column in 0..<width {
                                    let difference = x[column] - v[column]
                                    sum += difference * difference
                                }
                            } else {
                                for column in 0..<width { sum += x[column] * v[column] }
                            }
                            out[vector] = sum
                        }
                    }
                }
            case .sparse(let starts, let columns, let values):
                for example in 0..<count {
                    let x = rows.baseAddress! + example * width
                    let out = result.baseAddress! + example * svCount
                    var squaredNorm = 0.0
                    if distance { for column in 0..<width { squaredNorm += x[column] * x[column] } }
                    for vector in 0..<svCount {
                        var sum = 0.0
                        if distance {
                            // ‖x − v‖² = Σ over v's columns (x − v)² + Σ over the other columns x².
                            var covered = 0.0
                            for node in starts[vector]..<starts[vector + 1] {
                                let xValue = x[columns[node]]
                                let difference = xValue - values[node]
                                sum += difference * difference
                                covered += xValue * xValue
                            }
                            sum += max(squaredNorm - covered, 0)
                        } else {
                            for node in starts[vector]..<starts[vector + 1] { sum += x[columns[node]] * values[node] }
                        }
                        out[vector] = sum
                    }
                }
            }
            for index in result.indices { result[index] = kernel.value(result[index]) }
        }
        return result
    }
}
