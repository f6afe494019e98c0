import Foundation

/// What boosting minimizes, with XGBoost's gradients, hessians and starting scores (XGBoost 3.x
/// estimates `base_score` from the targets by default):
/// - squared error: g = p − y, h = 1; start at the mean target;
/// - logistic: g = σ(p) − y, h = max(σ(p)(1 − σ(p)), 1e-16); start at the log-odds of the mean
///   target (the mean kept within [1e-6, 1 − 1e-6]: a deliberate difference where XGBoost would start at ±∞);
/// - softmax over K classes: K trees per iteration, gₖ = pₖ − [y = k], hₖ = max(2pₖ(1 − pₖ), 1e-16)
///   (XGBoost's factor 2); start at log(max(shareₖ, 1e-6)) less their mean.
package enum TreeObjective: Sendable, Equatable {
    case squaredError
    case logistic
    case softmax(classCount: Int)

    /// The output dimensions, and trees per iteration.
    var dimensions: Int {
        if case .softmax(let k) = self { return k }
        return 1
    }

    func validate() throws {
        if case .softmax(let k) = self, k < 2 {
            throw TreeTrainingError("classCount", "a softmax needs at least 2 classes, not \(k)")
        }
    }

    /// Throws for a target that is not finite, not 0 or 1 (logistic), or not a class index.
    func checkTargets(_ targets: [Double], rows: Int, place: String) throws {
        guard targets.count == rows else {
            throw TreeTrainingError(place, "\(targets.count) targets for \(rows) rows")
        }
        for (r, y) in targets.enumerated() {
            switch self {
            case .squaredError:
                if !y.isFinite { throw TreeTrainingError("\(place) row \(r)", "the target \(y) is not finite") }
            case .logistic:
                if y != 0, y != 1 { throw TreeTrainingError("\(place) row \(r)", "the class index \(y) is not 0 or 1") }
            case .softmax(let k):
                if !(y >= 0 && y < Double(k) && y == y.rounded()) {
                    throw TreeTrainingError("\(place) row \(r)", "the class index \(y) is not in 0..<\(k)")
                }
            }
        }
    }

    func baseScores(_ targets: [Double]) -> [Double] {
        let n = Double(targets.count)
        switch self {
        case .squaredError:
            return [fixedBlockSum(targets.count) { r in targets[r] } / n]
        case .logistic:
            let mean = min(max(fixedBlockSum(targets.count) { r in targets[r] } / n, 1e-6), 1 - 1e-6)
            return [log(mean / (1 - mean))]
        case .softmax(let k):
            var counts = [Double](repeating: 0, count: k)
            for y in targets { counts[Int(y)] += 1 }
            let logs = counts.map { log(max($0 / n, 1e-6)) }
            let mean = logs.reduce(0, +) / Double(k)
            return logs.map { $0 - mean }
        }
    }

    /// Row r's gradient and hessian for output `k` into `out[2r], out[2r+1]`, from raw scores
    /// `scores[r·dimensions ..< +dimensions]`, for every row.
    func gradients(scores: UnsafePointer<Double>, targets: UnsafePointer<Double>, rows: Int, output k: Int,
                   into out: UnsafeMutablePointer<Float>, slots: Int) {
        let d = dimensions
        let objective = self
        forEachBlock(rows, slots: slots) { range in
            for r in range {
                let y = targets[r]
                switch objective {
                case .squaredError:
                    out[2 * r] = Float(scores[r] - y)
                    out[2 * r + 1] = 1
                case .logistic:
                    let p = 1 / (1 + exp(-scores[r]))
                    out[2 * r] = Float(p - y)
                    out[2 * r + 1] = Float(max(p * (1 - p), 1e-16))
                case .softmax:
                    let row = scores + r * d
                    var top = -Double.infinity
                    for j in 0..<d { top = max(top, row[j]) }
                    var sum = 0.0
                    for j in 0..<d { sum += exp(row[j] - top) }
                    let p = exp(row[k] - top) / sum
                    out[2 * r] = Float(Int(y) == k ? p - 1 : p)
                    out[2 * r + 1] = Float(max(2 * p * (1 - p), 1e-16))
                }
            }
        }
    }

    /// The loss (RMSE, log loss or multi-class log loss) and the metric (RMSE or accuracy) of raw scores.
    func evaluate(scores: UnsafePointer<Double>, targets: [Double], slots: Int) -> (loss: Double, metric: Double) {
        let n = targets.count
        let d = dimensions
        switch self {
        case .squaredError:
            let squares = fixedBlockSum(n, slots: slots) { r in
                let e = scores[r] - targets[r]
                return e * e
            }
            let rmse = (squares / Double(n)).squareRoot()
            return (rmse, rmse)
        case .logistic:
            let (loss, right) = fixedBlockSums(n, slots: slots) { r in
                let p = min(max(1 / (1 + exp(-scores[r])), 1e-16), 1 - 1e-16)
                let positive = targets[r] == 1
                return (positive ? -log(p) : -log(1 - p), (scores[r] > 0) == positive ? 1 : 0)
            }
            return (loss / Double(n), right / Double(n))
        case .softmax:
            let (loss, right) = fixedBlockSums(n, slots: slots) { r in
                let row = scores + r * d
                var best = 0
                for j in 1..<d where row[j] > row[best] { best = j }
                var sum = 0.0
                for j in 0..<d { sum += exp(row[j] - row[best]) }
                let y = Int(targets[r])
                let p = min(max(exp(row[y] - row[best]) / sum, 1e-16), 1)
                return (-log(p), best == y ? 1 : 0)
            }
            return (loss / Double(n), right / Double(n))
        }
    }
}

/// Runs `body` over `0..<count` in blocks of 16384 rows on the thread pool.
func forEachBlock(_ count: Int, slots: Int, _ body: (Range<Int>) -> Void) {
    let block = 1 << 14
    let blocks = (count + block - 1) / block
    parallelForEach(blocks, slots: slots) { _, b in body((b * block)..<min(count, (b + 1) * block)) }
}

/// Σ term(i) over `0..<count`, summed in fixed blocks then in block order: the same bits for any
/// number of threads.
func fixedBlockSum(_ count: Int, slots: Int = Int(Int32.max), _ term: (Int) -> Double) -> Double {
    fixedBlockSums(count, slots: slots) { (term($0), 0) }.0
}

/// Two sums at once, as `fixedBlockSum`.
func fixedBlockSums(_ count: Int, slots: Int = Int(Int32.max), _ term: (Int) -> (Double, Double)) -> (Double, Double) {
    let block = 1 << 14
    let blocks = (count + block - 1) / block
    var partial = [Double](repeating: 0, count: 2 * blocks)
    partial.withUnsafeMutableBufferPointer { out in
        let out = out
        parallelForEach(blocks, slots: slots) { _, b in
            var s = 0.0, t = 0.0
            for i in (b * block)..<min(count, (b + 1) * block) {
                let (x, y) = term(i)
                s += x
                t += y
            }
            out[2 * b] = s
            out[2 * b + 1] = t
        }
    }
    var s = 0.0, t = 0.0
    for b in 0..<blocks {
        s += partial[2 * b]
        t += partial[2 * b + 1]
    }
    return (s, t)
}
