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

    /// In one pass over the rows, from raw scores `scores[r·dimensions ..< +dimensions]`: every
    /// output's gradient and hessian (the type's doc), output k's of row r into
    /// `gradients[k·2·rows + 2r]` and `[… + 2r + 1]`, unless `gradients` is nil; and, when
    /// `measure` is set, the loss and metric of the same scores as ``evaluate(scores:targets:slots:)``
    /// computes them, to the bit (the same probabilities, summed in the same blocks in the same
    /// order). Boosting's training metrics come from the pass that makes the next round's
    /// gradients, so each row's probabilities are computed once per round instead of twice (a
    /// softmax's once instead of once per class and once more).
    func gradientsAndMeasure(scores: UnsafePointer<Double>, targets: UnsafePointer<Double>, rows n: Int,
                             gradients out: UnsafeMutablePointer<Float>?, measure: Bool, slots: Int) -> (loss: Double, metric: Double) {
        let d = dimensions
        let objective = self
        let block = 1 << 14
        let blocks = (n + block - 1) / block
        var partial = [Double](repeating: 0, count: 2 * blocks)
        partial.withUnsafeMutableBufferPointer { sums in
            let sums = sums
            parallelForEach(blocks, slots: slots) { _, b in
                var loss = 0.0, right = 0.0
                let range = (b * block)..<min(n, (b + 1) * block)
                switch objective {
                case .squaredError:
                    for r in range {
                        let e = scores[r] - targets[r]
                        if let out {
                            out[2 * r] = Float(e)
                            out[2 * r + 1] = 1
                        }
                        loss += e * e
                    }
                case .logistic:
                    for r in range {
                        let y = targets[r]
                        let p = 1 / (1 + exp(-scores[r]))
                        if let out {
                            out[2 * r] = Float(p - y)
                            out[2 * r + 1] = Float(max(p * (1 - p), 1e-16))
                        }
                        if measure {
                            let probability = y == 1 ? p : 1 - p
                            loss += -log(min(max(probability, 1e-16), 1))
                            right += (scores[r] > 0 ? 1 : 0) == Int(y) ? 1 : 0
                        }
                    }
                case .softmax:
                    withUnsafeTemporaryAllocation(of: Double.self, capacity: d) { e in
                        for r in range {
                            let row = scores + r * d
                            let y = Int(targets[r])
                            var top = -Double.infinity
                            var best = 0
                            for j in 0..<d {
                                top = max(top, row[j])
                                if j > 0, row[j] > row[best] { best = j }
                            }
                            var sum = 0.0
                            for j in 0..<d {
                                e[j] = exp(row[j] - top)
                                sum += e[j]
                            }
                            if let out {
                                for k in 0..<d {
                                    let p = e[k] / sum
                                    let g = out + k * 2 * n
                                    g[2 * r] = Float(y == k ? p - 1 : p)
                                    g[2 * r + 1] = Float(max(2 * p * (1 - p), 1e-16))
                                }
                            }
                            if measure {
                                loss += -log(min(max(e[y] / sum, 1e-16), 1))
                                right += best == y ? 1 : 0
                            }
                        }
                    }
                }
                sums[2 * b] = loss
                sums[2 * b + 1] = right
            }
        }
        guard measure else { return (0, 0) }
        var loss = 0.0, right = 0.0
        for b in 0..<blocks {
            loss += partial[2 * b]
            right += partial[2 * b + 1]
        }
        if self == .squaredError {
            let rmse = (loss / Double(n)).squareRoot()
            return (rmse, rmse)
        }
        return (loss / Double(n), right / Double(n))
    }

    /// The loss (RMSE, log loss or multi-class log loss) and the metric (RMSE or accuracy) of raw scores.
    func evaluate(scores: UnsafePointer<Double>, targets: [Double], slots: Int) -> (loss: Double, metric: Double) {
        let d = dimensions
        switch self {
        case .squaredError:
            return Self.rootMeanSquaredError(targets.count, slots: slots) { r in scores[r] - targets[r] }
        case .logistic:
            return Self.logLossAndAccuracy(targets, slots: slots) { r in
                let p = 1 / (1 + exp(-scores[r]))
                return (targets[r] == 1 ? p : 1 - p, scores[r] > 0 ? 1 : 0)
            }
        case .softmax:
            return Self.logLossAndAccuracy(targets, slots: slots) { r in
                let row = scores + r * d
                var best = 0
                for j in 1..<d where row[j] > row[best] { best = j }
                var sum = 0.0
                for j in 0..<d { sum += exp(row[j] - row[best]) }
                return (exp(row[Int(targets[r])] - row[best]) / sum, best)
            }
        }
    }

    /// The root mean square of `error(r)` over `count` rows, as (loss, metric) — boosting and forests.
    static func rootMeanSquaredError(_ count: Int, slots: Int, _ error: (Int) -> Double) -> (loss: Double, metric: Double) {
        let squares = fixedBlockSum(count, slots: slots) { r in
            let e = error(r)
            return e * e
        }
        let rmse = (squares / Double(count)).squareRoot()
        return (rmse, rmse)
    }

    /// The mean log loss and the accuracy over rows whose `row(r)` gives the probability of the
    /// target class (kept within [1e-16, 1]) and the predicted class — boosting and forests.
    static func logLossAndAccuracy(_ targets: [Double], slots: Int,
                                   _ row: (Int) -> (probability: Double, predicted: Int)) -> (loss: Double, metric: Double) {
        let n = targets.count
        let (loss, right) = fixedBlockSums(n, slots: slots) { r in
            let (p, predicted) = row(r)
            return (-log(min(max(p, 1e-16), 1)), predicted == Int(targets[r]) ? 1 : 0)
        }
        return (loss / Double(n), right / Double(n))
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
