/// The last few curvature pairs `s = xₖ₊₁ − xₖ`, `y = ∇fₖ₊₁ − ∇fₖ` of a quasi-Newton solver, and
/// the two-loop recursion that multiplies a vector by the inverse-Hessian approximation they define
/// (Nocedal & Wright, Algorithm 7.4), with the initial scaling `γ = sᵀy / yᵀy` of the newest pair.
struct LBFGSHistory {
    let capacity: Int
    private var s: [[Double]] = []
    private var y: [[Double]] = []
    private var rho: [Double] = []
    /// Index of the oldest pair once the ring is full.
    private var oldest = 0

    init(capacity: Int) {
        precondition(capacity >= 1)
        self.capacity = capacity
    }

    var count: Int { s.count }

    mutating func removeAll() {
        s.removeAll()
        y.removeAll()
        rho.removeAll()
        oldest = 0
    }

    /// Adds a pair, dropping the oldest when full. Pairs with `sᵀy` not clearly positive would
    /// break positive definiteness and are skipped; returns whether the pair was kept.
    @discardableResult
    mutating func append(s newS: [Double], y newY: [Double]) -> Bool {
        let sy = dot(newS, newY)
        let yy = dot(newY, newY)
        guard sy > 1e-10 * yy.squareRoot() * dot(newS, newS).squareRoot(), sy.isFinite else { return false }
        if s.count < capacity {
            s.append(newS)
            y.append(newY)
            rho.append(1 / sy)
        } else {
            s[oldest] = newS
            y[oldest] = newY
            rho[oldest] = 1 / sy
            oldest = (oldest + 1) % capacity
        }
        return true
    }

    /// Adds the pair of one step: `s = x₊ − x`, `y = ∇f₊ − ∇f` (of the smooth part).
    @discardableResult
    mutating func append(step: (from: [Double], to: [Double]), gradients: (from: [Double], to: [Double])) -> Bool {
        let n = step.from.count
        var s = [Double](repeating: 0, count: n), y = s
        for i in 0..<n {
            s[i] = step.to[i] - step.from[i]
            y[i] = gradients.to[i] - gradients.from[i]
        }
        return append(s: s, y: y)
    }

    /// H·v, where H approximates the inverse Hessian (the identity with no pairs).
    func apply(to v: [Double]) -> [Double] {
        var q = v
        let n = s.count
        guard n > 0 else { return q }
        var alpha = [Double](repeating: 0, count: n)
        // Newest to oldest.
        for k in 0..<n {
            let i = (oldest + n - 1 - k) % n
            alpha[i] = rho[i] * dot(s[i], q)
            axpy(-alpha[i], y[i], &q)
        }
        let newest = (oldest + n - 1) % n
        let gamma = 1 / (rho[newest] * dot(y[newest], y[newest]))
        for j in q.indices { q[j] *= gamma }
        // Oldest to newest.
        for k in 0..<n {
            let i = (oldest + k) % n
            let beta = rho[i] * dot(y[i], q)
            axpy(alpha[i] - beta, s[i], &q)
        }
        return q
    }
}

/// Σ aᵢbᵢ.
func dot(_ a: [Double], _ b: [Double]) -> Double {
    a.withUnsafeBufferPointer { a in
        b.withUnsafeBufferPointer { b in
            var sum = 0.0
            for i in 0..<a.count { sum += a[i] * b[i] }
            return sum
        }
    }
}

/// y += a·x.
func axpy(_ a: Double, _ x: [Double], _ y: inout [Double]) {
    x.withUnsafeBufferPointer { x in
        y.withUnsafeMutableBufferPointer { y in
            for i in 0..<x.count { y[i] += a * x[i] }
        }
    }
}

/// max |vᵢ|.
func maxAbs(_ v: [Double]) -> Double {
    v.reduce(0) { max($0, abs($1)) }
}
