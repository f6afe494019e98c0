import _OpenCoreMLKernels

/// A node's best split, found from its gradient histogram.
///
/// The loss reduction of parting a node's rows into L and R is
/// `Σₖ G_Lₖ²/(H_L+λ) + Σₖ G_Rₖ²/(H_R+λ) − Σₖ Gₖ²/(H+λ)` over the outputs k (one for boosting),
/// with each child's hessian sum at least `minChildWeight`. Numeric features: every cut between
/// bins with missing values to the right (bins ascending), then — when the node has missing
/// values — with missing values to the left (bins descending); categorical: each code against the
/// rest, missing values with the rest, then with the code. Ties keep the first found, features in
/// ascending order (XGBoost's order, so equal gains pick the same split).
struct SplitCandidate {
    enum Rule: Equatable {
        /// Left (the true child) = value bins `< bin`.
        case below(bin: Int)
        /// Left = the code's bin.
        case code(Int)
    }

    var gain: Double
    var feature: Int
    var rule: Rule
    var missingLeft: Bool
    var left: [Double]
    var right: [Double]

    /// Whether a row in `bin` of the feature goes to the left (true) child, for every bin of the feature.
    func leftBins(_ data: BinnedFeatures) -> [Bool] {
        let missing = data.missingBin(feature)
        var table = [Bool](repeating: false, count: 256)
        switch rule {
        case .below(let bin): for b in 0..<min(bin, missing) { table[b] = true }
        case .code(let code): table[code] = true
        }
        table[missing] = missingLeft
        return table
    }

    /// The split's test in raw units.
    func test(_ data: BinnedFeatures) -> TrainedTree.Test {
        switch rule {
        case .below(let bin):
            if bin <= 0 { return .lessThan(-.infinity) }
            if bin >= data.valueBinCounts[feature] { return .lessThan(.infinity) }
            return .lessThan(data.cuts[feature][bin - 1])
        case .code(let code):
            return .equal(Double(code))
        }
    }
}

struct SplitFinder {
    let data: BinnedFeatures
    let outputs: Int
    let lambda: Double
    let minChildWeight: Double
    /// XGBoost's tolerance: a split must reduce the loss by more than this, and a node "has
    /// missing values" when their sums differ from zero by this much.
    static let epsilon = 1e-6

    var width: Int { outputs + 1 }

    /// Σₖ Gₖ²/(H+λ), 0 for an empty side.
    @inline(__always)
    func score(_ s: UnsafePointer<Double>) -> Double {
        let h = s[outputs]
        guard h > 0 else { return 0 }
        var total = 0.0
        for k in 0..<outputs { total += s[k] * s[k] }
        return total / (h + lambda)
    }

    /// The best split of a node over `features`: each feature's best (``bestOfFeature(_:histogram:sums:)``),
    /// the first of largest gain in the features' order, kept when its gain is above `epsilon`.
    func best(histogram: UnsafePointer<Double>, sums: [Double], features: [Int32]) -> SplitCandidate? {
        choose(features.map { bestOfFeature(Int($0), histogram: histogram, sums: sums) })
    }

    /// The first candidate of largest gain among each feature's best (in the features' order),
    /// when its gain is above `epsilon` — the same split as one scan over every feature's candidates.
    func choose(_ candidates: [SplitCandidate?]) -> SplitCandidate? {
        var best: SplitCandidate?
        for case let candidate? in candidates where candidate.gain > best?.gain ?? 0 { best = candidate }
        guard let best, best.gain > Self.epsilon else { return nil }
        return best
    }

    /// Feature `f`'s first candidate of largest gain above 0 in a node's histogram, or nil.
    func bestOfFeature(_ f: Int, histogram: UnsafePointer<Double>, sums: [Double]) -> SplitCandidate? {
        let w = width
        let base = histogram + Int(data.binOffsets[f]) * w
        let valueBins = data.valueBinCounts[f]
        let parent = sums.withUnsafeBufferPointer { score($0.baseAddress!) }
        if outputs == 1, data.kinds[f] == .numeric {
            var found = ocm_split_result()
            guard ocm_best_numeric_split(base, Int32(valueBins), sums[0], sums[1], lambda, minChildWeight, parent,
                                         Self.epsilon, &found) != 0 else { return nil }
            return SplitCandidate(gain: found.gain, feature: f, rule: .below(bin: Int(found.bin)), missingLeft: found.missing_left != 0,
                                  left: [found.left_g, found.left_h], right: [found.right_g, found.right_h])
        }
        var best: SplitCandidate?
        var bestGain = 0.0
        var left = [Double](repeating: 0, count: w)
        var right = [Double](repeating: 0, count: w)
        var accumulated = [Double](repeating: 0, count: w)
        sums.withUnsafeBufferPointer { total in
            let total = total.baseAddress!
            left.withUnsafeMutableBufferPointer { leftBuffer in
                right.withUnsafeMutableBufferPointer { rightBuffer in
                    accumulated.withUnsafeMutableBufferPointer { accBuffer in
                        let l = leftBuffer.baseAddress!, r = rightBuffer.baseAddress!, acc = accBuffer.baseAddress!
                        func consider(_ rule: SplitCandidate.Rule, missingLeft: Bool) {
                            guard l[outputs] >= minChildWeight, r[outputs] >= minChildWeight,
                                  l[outputs] > 0, r[outputs] > 0 else { return }
                            let gain = score(l) + score(r) - parent
                            guard gain > bestGain else { return }
                            bestGain = gain
                            best = SplitCandidate(gain: gain, feature: f, rule: rule, missingLeft: missingLeft,
                                                  left: Array(UnsafeBufferPointer(start: l, count: w)),
                                                  right: Array(UnsafeBufferPointer(start: r, count: w)))
                        }
                        let missing = base + valueBins * w
                        var hasMissing = false
                        for j in 0..<w where abs(missing[j]) >= Self.epsilon { hasMissing = true }
                        if case .categorical = data.kinds[f] {
                            for code in 0..<data.codeBins(f) {
                                let bin = base + code * w
                                for j in 0..<w {
                                    l[j] = bin[j]
                                    r[j] = total[j] - bin[j]
                                }
                                consider(.code(code), missingLeft: false)
                                if hasMissing {
                                    for j in 0..<w {
                                        l[j] = bin[j] + missing[j]
                                        r[j] = total[j] - l[j]
                                    }
                                    consider(.code(code), missingLeft: true)
                                }
                            }
                            return
                        }
                        for j in 0..<w { acc[j] = 0 }
                        for b in 0..<valueBins {
                            let bin = base + b * w
                            for j in 0..<w {
                                acc[j] += bin[j]
                                l[j] = acc[j]
                                r[j] = total[j] - acc[j]
                            }
                            consider(.below(bin: b + 1), missingLeft: false)
                        }
                        guard hasMissing else { return }
                        for j in 0..<w { acc[j] = 0 }
                        for b in stride(from: valueBins - 1, through: 0, by: -1) {
                            let bin = base + b * w
                            for j in 0..<w {
                                acc[j] += bin[j]
                                r[j] = acc[j]
                                l[j] = total[j] - acc[j]
                            }
                            consider(.below(bin: b), missingLeft: true)
                        }
                    }
                }
            }
        }
        return best
    }
}
