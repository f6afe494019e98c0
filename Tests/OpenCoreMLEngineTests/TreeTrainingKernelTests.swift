import Foundation
import Testing
import _OpenCoreMLKernels
@testable import _OpenCoreMLEngine

/// The pieces issue 43 made faster, each against a plain reference: the radix sort behind the bin
/// cuts, the one-pass gradients and training metrics, the split search in C, and the row partition.
@Suite("Tree training kernels")
struct TreeTrainingKernelTests {
    /// A stable sort by `<` (index order breaking ties), as the bin cuts were chosen before.
    static func referenceSort(_ values: [Double]) -> [Double] {
        values.indices.sorted { values[$0] < values[$1] || (values[$0] == values[$1] && $0 < $1) }.map { values[$0] }
    }

    @Test("The radix sort orders as a stable sort does, −0 and +0 in their input order", arguments: [false, true])
    func sortedStably(float32: Bool) {
        var random = TreeTrainingRandom(seed: float32 ? 3 : 4)
        for count in [1, 2, 3, 17, 1000, 70_000] {
            var values = (0..<count).map { _ -> Double in
                switch Int(random.unit() * 6) {
                case 0: return 0
                case 1: return -0.0
                case 2: return (random.unit() * 20).rounded() - 10
                case 3: return (random.unit() - 0.5) * 1e30
                case 4: return (random.unit() - 0.5) * 1e-30
                default: return random.unit() - 0.5
                }
            }
            if count > 3 { values[1] = .infinity; values[2] = -.infinity }
            if float32 { values = values.map { Double(Float($0)) } }
            let got = BinnedFeatures.sortedStably(values)
            let expected = Self.referenceSort(values)
            #expect(got.map(\.bitPattern) == expected.map(\.bitPattern), "\(count) values")
        }
        #expect(BinnedFeatures.sortedStably([]) == [])
    }

    /// The old separate passes: each output's gradient by its formula, and `evaluate`.
    static func referenceGradients(_ objective: TreeObjective, scores: [Double], targets: [Double]) -> [Float] {
        let d = objective.dimensions, n = targets.count
        var out = [Float](repeating: 0, count: 2 * n * d)
        for k in 0..<d {
            for r in 0..<n {
                let y = targets[r]
                switch objective {
                case .squaredError:
                    out[k * 2 * n + 2 * r] = Float(scores[r] - y)
                    out[k * 2 * n + 2 * r + 1] = 1
                case .logistic:
                    let p = 1 / (1 + exp(-scores[r]))
                    out[k * 2 * n + 2 * r] = Float(p - y)
                    out[k * 2 * n + 2 * r + 1] = Float(max(p * (1 - p), 1e-16))
                case .softmax:
                    let row = Array(scores[(r * d)..<((r + 1) * d)])
                    let top = row.max()!
                    var sum = 0.0
                    for v in row { sum += exp(v - top) }
                    let p = exp(row[k] - top) / sum
                    out[k * 2 * n + 2 * r] = Float(Int(y) == k ? p - 1 : p)
                    out[k * 2 * n + 2 * r + 1] = Float(max(2 * p * (1 - p), 1e-16))
                }
            }
        }
        return out
    }

    @Test("One pass makes every output's gradients and the metrics `evaluate` gives, to the bit",
          arguments: [TreeObjective.squaredError, .logistic, .softmax(classCount: 3)])
    func gradientsAndMeasure(objective: TreeObjective) {
        var random = TreeTrainingRandom(seed: 9)
        let d = objective.dimensions
        for n in [1, 5, 16_384, 40_001] {
            let scores = (0..<(n * d)).map { _ in (random.unit() - 0.5) * 8 }
            let targets: [Double] = (0..<n).map { _ in
                switch objective {
                case .squaredError: return random.unit() * 3
                case .logistic: return random.unit() < 0.4 ? 1 : 0
                case .softmax(let k): return Double(Int(random.unit() * Double(k)))
                }
            }
            var gradients = [Float](repeating: .nan, count: 2 * n * d)
            let (loss, metric) = scores.withUnsafeBufferPointer { s in
                targets.withUnsafeBufferPointer { t in
                    gradients.withUnsafeMutableBufferPointer { g in
                        objective.gradientsAndMeasure(scores: s.baseAddress!, targets: t.baseAddress!, rows: n, gradients: g.baseAddress!,
                                                      measure: true, slots: 2)
                    }
                }
            }
            let (expectedLoss, expectedMetric) = scores.withUnsafeBufferPointer {
                objective.evaluate(scores: $0.baseAddress!, targets: targets, slots: 2)
            }
            #expect(loss.bitPattern == expectedLoss.bitPattern && metric.bitPattern == expectedMetric.bitPattern, "\(n) rows")
            let expected = Self.referenceGradients(objective, scores: scores, targets: targets)
            #expect(gradients.map(\.bitPattern) == expected.map(\.bitPattern), "\(n) rows")
            // Without gradients (the last round), the same metrics; one thread or two, the same bits.
            let again = scores.withUnsafeBufferPointer { s in
                targets.withUnsafeBufferPointer { t in
                    objective.gradientsAndMeasure(scores: s.baseAddress!, targets: t.baseAddress!, rows: n, gradients: nil,
                                                  measure: true, slots: 1)
                }
            }
            #expect(again.loss.bitPattern == loss.bitPattern && again.metric.bitPattern == metric.bitPattern)
        }
    }

    /// Every candidate of one numeric feature by the documented rule, the first of largest gain above 0.
    static func referenceSplit(_ hist: [Double], valueBins: Int, total: (Double, Double), lambda: Double,
                               minChildWeight: Double) -> (gain: Double, bin: Int, missingLeft: Bool, left: [Double], right: [Double])? {
        func score(_ g: Double, _ h: Double) -> Double { h > 0 ? g * g / (h + lambda) : 0 }
        let parent = score(total.0, total.1)
        var best: (gain: Double, bin: Int, missingLeft: Bool, left: [Double], right: [Double])?
        func consider(_ l: (Double, Double), _ r: (Double, Double), _ bin: Int, _ missingLeft: Bool) {
            guard l.1 >= minChildWeight, r.1 >= minChildWeight, l.1 > 0, r.1 > 0 else { return }
            let gain = score(l.0, l.1) + score(r.0, r.1) - parent
            if gain > (best?.gain ?? 0) { best = (gain, bin, missingLeft, [l.0, l.1], [r.0, r.1]) }
        }
        var acc = (0.0, 0.0)
        for b in 0..<valueBins {
            acc = (acc.0 + hist[2 * b], acc.1 + hist[2 * b + 1])
            consider(acc, (total.0 - acc.0, total.1 - acc.1), b + 1, false)
        }
        let missing = (hist[2 * valueBins], hist[2 * valueBins + 1])
        guard abs(missing.0) >= SplitFinder.epsilon || abs(missing.1) >= SplitFinder.epsilon else { return best }
        acc = (0, 0)
        for b in stride(from: valueBins - 1, through: 0, by: -1) {
            acc = (acc.0 + hist[2 * b], acc.1 + hist[2 * b + 1])
            consider((total.0 - acc.0, total.1 - acc.1), acc, b, true)
        }
        return best
    }

    @Test("The split search in C finds the candidate the documented rule finds")
    func numericSplit() {
        var random = TreeTrainingRandom(seed: 21)
        var found = 0
        for trial in 0..<2_000 {
            // Up to 40 bins, and every tenth trial up to 600 (beyond the kernel's 256-candidate pieces).
            let valueBins = 1 + Int(random.unit() * (trial % 10 == 0 ? 600 : 40))
            var hist = [Double](repeating: 0, count: 2 * (valueBins + 1))
            for b in 0...valueBins {
                let rows = random.unit() < 0.2 ? 0 : random.unit() * 30
                hist[2 * b] = (random.unit() - 0.5 + (b < valueBins / 2 ? 0.3 : -0.3)) * rows
                hist[2 * b + 1] = rows * 0.25
            }
            if trial % 3 == 0 { hist[2 * valueBins] = 0; hist[2 * valueBins + 1] = 0 }
            var total = (0.0, 0.0)
            for b in 0...valueBins { total = (total.0 + hist[2 * b], total.1 + hist[2 * b + 1]) }
            let lambda: Double = [0, 1, 5][trial % 3], minChildWeight: Double = [0, 0.1, 1, 4][trial % 4]
            let parent = total.1 > 0 ? total.0 * total.0 / (total.1 + lambda) : 0
            var result = ocm_split_result()
            let ok = hist.withUnsafeBufferPointer {
                ocm_best_numeric_split($0.baseAddress!, Int32(valueBins), total.0, total.1, lambda, minChildWeight, parent,
                                       SplitFinder.epsilon, &result)
            }
            let expected = Self.referenceSplit(hist, valueBins: valueBins, total: total, lambda: lambda, minChildWeight: minChildWeight)
            #expect((ok != 0) == (expected != nil), "trial \(trial)")
            guard let expected, ok != 0 else { continue }
            found += 1
            #expect(result.gain.bitPattern == expected.gain.bitPattern && Int(result.bin) == expected.bin
                    && (result.missing_left != 0) == expected.missingLeft, "trial \(trial)")
            #expect([result.left_g, result.left_h] == expected.left && [result.right_g, result.right_h] == expected.right)
        }
        #expect(found > 1_000)
    }

    @Test("Histograms from the feature-major bins equal the row-major kernel's to the bit")
    func columnHistograms() {
        var random = TreeTrainingRandom(seed: 8)
        let rowCount = 6_000, featureCount = 7
        let bins = (0..<(rowCount * featureCount)).map { i in UInt8(i % featureCount == 0 ? Int(random.unit() * 3) : Int(random.unit() * 200)) }
        var columns = [UInt8](repeating: 0, count: bins.count)
        for r in 0..<rowCount { for f in 0..<featureCount { columns[f * rowCount + r] = bins[r * featureCount + f] } }
        let offsets = (0..<featureCount).map { UInt32($0 * 256) }
        let values = (0..<(2 * rowCount)).map { _ in Float(random.unit() - 0.3) }
        for features: [Int32] in [[0, 1, 2, 3, 4, 5, 6], [6, 2, 0], [3], [1, 2, 3, 4, 5]] {
            for rows in [(0..<rowCount).map { UInt32($0) }, (0..<rowCount).filter { _ in random.unit() < 0.3 }.map { UInt32($0) }] {
                var expected = [Double](repeating: 0, count: 2 * 256 * featureCount)
                var got = expected
                ocm_histogram_accumulate(bins, featureCount, rows, rows.count, values, 2, features, Int32(features.count), offsets, &expected)
                ocm_histogram_accumulate_columns(columns, rowCount, rows, 0, rows.count, values, features, Int32(features.count), offsets, &got)
                #expect(got.map(\.bitPattern) == expected.map(\.bitPattern), "features \(features), \(rows.count) rows")
                #expect(expected.contains { $0 != 0 })
            }
            // Consecutive rows given by their first (no row list): rows 100 ..< 5,100.
            let range = (100..<5_100).map { UInt32($0) }
            var expected = [Double](repeating: 0, count: 2 * 256 * featureCount)
            var got = expected
            ocm_histogram_accumulate(bins, featureCount, range, range.count, values, 2, features, Int32(features.count), offsets, &expected)
            ocm_histogram_accumulate_columns(columns, rowCount, nil, 100, range.count, values, features, Int32(features.count), offsets, &got)
            #expect(got.map(\.bitPattern) == expected.map(\.bitPattern), "features \(features), consecutive rows")
        }
    }

    @Test("The row partition keeps each side's rows in order")
    func partition() {
        var random = TreeTrainingRandom(seed: 2)
        let rowCount = 5_000, stride = 3
        let bins = (0..<(rowCount * stride)).map { _ in UInt8(random.unit() * 256) }
        for feature in 0..<stride {
            let goesLeft = (0..<256).map { _ in random.unit() < 0.5 }
            var rows = (0..<rowCount).filter { _ in random.unit() < 0.7 }.map { UInt32($0) }
            let expected = rows.filter { goesLeft[Int(bins[Int($0) * stride + feature])] }
                + rows.filter { !goesLeft[Int(bins[Int($0) * stride + feature])] }
            let leftCount = rows.filter { goesLeft[Int(bins[Int($0) * stride + feature])] }.count
            var scratch = [UInt32](repeating: 0, count: rows.count)
            let count = rows.count
            let left = rows.withUnsafeMutableBufferPointer { r in
                scratch.withUnsafeMutableBufferPointer { s in
                    ocm_partition_rows(r.baseAddress!, count, bins, stride, Int32(feature), goesLeft, s.baseAddress!)
                }
            }
            #expect(left == leftCount && rows == expected)
        }
    }
}
