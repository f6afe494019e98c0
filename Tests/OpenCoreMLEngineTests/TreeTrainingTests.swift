import Foundation
import Testing
import _OpenCoreMLKernels
@testable import _OpenCoreMLEngine

/// Tree training's pieces: binning, missing-value directions, categorical splits, the histogram
/// subtraction trick, early stopping, thread-count invariance, forests and errors.
@Suite("Tree training")
struct TreeTrainingTests {
    static let oneTree = TreeGrowthParameters(maxDepth: 1, minChildWeight: 1)

    static func decisionTree(_ columns: [[Double]], _ kinds: [TreeFeatureKind], _ targets: [Double],
                             growth: TreeGrowthParameters = oneTree) throws -> TreeEnsembleFit {
        let data = try BinnedFeatures(columns: columns, kinds: kinds)
        return try RandomForestTrees(task: .regression, growth: growth, treeCount: 1)
            .fit(training: data, targets: targets, validation: nil) { _ in true }
    }

    @Test("Numeric cuts: every distinct value but the smallest when few; exact `x < cut` bins")
    func cuts() throws {
        let column: [Double] = [3, 1, 2, 2, .nan, 7, 1]
        let data = try BinnedFeatures(columns: [column], kinds: [.numeric])
        #expect(data.cuts[0] == [2, 3, 7])
        #expect(data.valueBinCounts[0] == 4)
        // 3 → bin 2 (2 <= 3 < 7), NaN → the missing bin 4.
        #expect(data.bins == [2, 0, 1, 1, 4, 3, 0])
        // Many distinct values: at most maxBins − 1 value bins, each cut a value of the data.
        let many = (0..<1000).map { Double($0 * 7 % 1000) }
        let coarse = try BinnedFeatures(columns: [many], kinds: [.numeric], maxBins: 16)
        #expect(coarse.valueBinCounts[0] <= 15 && coarse.valueBinCounts[0] >= 14)
        #expect(coarse.cuts[0].allSatisfy { many.contains($0) })
        // Columns asked for one at a time bin the same.
        let columns = [many, many.map { $0.truncatingRemainder(dividingBy: 7) }, many.reversed()]
        let atOnce = try BinnedFeatures(columns: columns, kinds: [.numeric, .categorical(count: 5), .numeric], maxBins: 16)
        let oneByOne = try BinnedFeatures(rowCount: 1000, kinds: [.numeric, .categorical(count: 5), .numeric], maxBins: 16,
                                          columnsAtOnce: 1) { columns[$0] }
        #expect(atOnce.bins == oneByOne.bins && atOnce.cuts == oneByOne.cuts && atOnce.binOffsets == oneByOne.binOffsets)
        #expect(atOnce.valueBinCounts[1] == 6)  // codes 0..<5 and the "other" bin (codes 5 and 6)
        for (r, x) in many.enumerated() {
            let bin = Int(coarse.bins[r])
            if bin > 0 { #expect(x >= coarse.cuts[0][bin - 1]) }
            if bin < coarse.cuts[0].count { #expect(x < coarse.cuts[0][bin]) }
        }
    }

    /// Training sees every value rounded to float32, as the written model's branches compare it
    /// (and as XGBoost trains): the double just below 2 is 2 to a tree, so no split can part
    /// them, the cuts are float32 values, and the trainer's own evaluation sends both to one leaf,
    /// as the runner does (`TreeEnsembleLayout.comparedValue`).
    @Test("Values are binned and compared as float32")
    func float32Values() throws {
        let below = 2.0.nextDown
        #expect(Double(Float(below)) == 2)
        let fit = try Self.decisionTree([[1, 1, 1, below, 2, 2, 2]], [.numeric], [0, 0, 0, 0, 10, 10, 10])
        let data = try BinnedFeatures(columns: [[1, 1, 1, below, 2, 2, 2]], kinds: [.numeric])
        #expect(data.cuts[0].allSatisfy { Double(Float($0)) == $0 })
        #expect(fit.scores(columns: [[below]]) == fit.scores(columns: [[2]]))
        #expect(fit.scores(columns: [[below]]) == [7.5])
        // A finite value float32 cannot hold is an error naming the cell, not an infinity.
        do {
            _ = try BinnedFeatures(columns: [[1, 2, 1e300]], kinds: [.numeric])
            Issue.record("1e300 was binned")
        } catch let error as TreeTrainingError {
            #expect(error.location == "feature 0, row 2" && error.message.contains("float32"))
        }
    }

    @Test("Missing values go to the side whose targets they share", arguments: [false, true])
    func missingDirection(missingLikeLow: Bool) throws {
        // x = 0 → 0, x = 1 → 10; missing rows → 0 or 10. Best depth-1 split: x < 1, NaN with their kind.
        var x = [Double](), y = [Double]()
        for i in 0..<30 {
            x.append(Double(i % 2))
            y.append(i % 2 == 0 ? 0 : 10)
        }
        for _ in 0..<6 {
            x.append(.nan)
            y.append(missingLikeLow ? 0 : 10)
        }
        let fit = try Self.decisionTree([x], [.numeric], y)
        let root = fit.trees[0].nodes[0]
        #expect(root.test == .lessThan(1))
        #expect(root.missingGoesToTrueChild == missingLikeLow)
        // Leaves: means 0 and 10 exactly.
        let scores = fit.scores(columns: [[0, 1, .nan]])
        #expect(scores == [0, 10, missingLikeLow ? 0 : 10])
    }

    @Test("A categorical feature splits one category against the rest")
    func categoricalSplit() throws {
        // Code 2 → 5, the others (and missing) → 0: one equality split parts them, which no
        // single `<` split on the codes could.
        var codes = [Double](), y = [Double]()
        for i in 0..<40 {
            codes.append(Double(i % 4))
            y.append(i % 4 == 2 ? 5 : 0)
        }
        codes.append(.nan)
        y.append(0)
        let fit = try Self.decisionTree([codes], [.categorical(count: 4)], y)
        let root = fit.trees[0].nodes[0]
        #expect(root.test == .equal(2))
        #expect(root.missingGoesToTrueChild == false)
        // An unknown code takes the "not equal" branch, in bins and in raw units.
        #expect(fit.scores(columns: [[0, 1, 2, 3, .nan, 9]]) == [0, 0, 5, 0, 0, 0])
        let data = try BinnedFeatures(columns: [codes], kinds: [.categorical(count: 4)])
        let other = try data.binning(columns: [[9, .nan, 3]])
        #expect(other.bins == [4, 5, 3])
    }

    @Test("The subtraction trick: parent − one child = the other child's direct histogram")
    func subtraction() throws {
        var random = TreeTrainingRandom(seed: 7)
        let rows = 70_000, features = 4
        let columns = (0..<features).map { f in (0..<rows).map { _ in f == 3 && random.unit() < 0.1 ? .nan : Double(random.below(40 + f)) } }
        let data = try BinnedFeatures(columns: columns, kinds: [.numeric, .numeric, .categorical(count: 41), .numeric])
        let values = (0..<rows * 2).map { i in i % 2 == 0 ? Float(random.unit() * 2 - 1) : Float(random.unit()) }
        let all = (0..<rows).map { UInt32($0) }
        let left = all.filter { _ in random.unit() < 0.3 }
        let leftSet = Set(left)
        let right = all.filter { !leftSet.contains($0) }
        let histograms = try GradientHistograms(data: data, width: 2, features: [0, 1, 2, 3], slots: 2)
        var parent = [Double](repeating: .nan, count: histograms.size)
        var child = parent, sibling = parent, direct = parent
        try values.withUnsafeBufferPointer { v in
            for (rowList, out) in [(all, 0), (left, 1), (right, 2)] {
                try rowList.withUnsafeBufferPointer { r in
                    var buffer = [Double](repeating: .nan, count: histograms.size)
                    try buffer.withUnsafeMutableBufferPointer { b in
                        try histograms.build([.init(rows: r.baseAddress!, count: r.count, output: b.baseAddress!)],
                                             values: v.baseAddress!)
                    }
                    switch out {
                    case 0: parent = buffer
                    case 1: child = buffer
                    default: direct = buffer
                    }
                }
            }
        }
        sibling.withUnsafeMutableBufferPointer { s in
            histograms.subtract(parent: parent, built: child, into: s.baseAddress!)
        }
        // Independent check of the direct build: bin counts (hessian-free) by hand for feature 0.
        var countsByHand = [Double](repeating: 0, count: data.valueBinCounts[0] + 1)
        for r in right { countsByHand[Int(data.bins[Int(r) * features])] += Double(values[Int(r) * 2 + 1]) }
        for b in 0...data.valueBinCounts[0] {
            #expect(abs(direct[2 * b + 1] - countsByHand[b]) < 1e-9)
        }
        var worst = 0.0
        for i in 0..<histograms.size { worst = max(worst, abs(sibling[i] - direct[i])) }
        #expect(worst < 1e-9)
    }

    @Test("Several nodes in parts of rows, within a small scratch budget: each node's sums, the same for 1 and 2 threads")
    func histogramParts() throws {
        var random = TreeTrainingRandom(seed: 13)
        let rows = 360_000, width = 3
        let columns = (0..<3).map { f in (0..<rows).map { _ in Double(random.below(20 + 10 * f)) } }
        let data = try BinnedFeatures(columns: columns, kinds: [.numeric, .numeric, .categorical(count: 40)])
        let values = (0..<rows * width).map { _ in Float(random.unit() * 2 - 1) }
        // Four nodes of 220,000, 20,000, 70,000 and 50,000 rows: 7, 1, 3 and 2 blocks of 32,768.
        let all = (0..<rows).map { UInt32($0) }
        let cuts = [0, 220_000, 240_000, 310_000, 360_000]
        let nodes = (0..<4).map { Array(all[cuts[$0]..<cuts[$0 + 1]]) }
        let perHistogram = data.totalBins * width * 8
        func build(budget: Int, threads: Int) throws -> ([[Double]], Int) {
            let histograms = try GradientHistograms(data: data, width: width, features: [0, 1, 2], slots: threads,
                                                    scratchBudget: budget)
            var outputs = [Double](repeating: .nan, count: 4 * histograms.size)
            try values.withUnsafeBufferPointer { v in
                try nodes[0].withUnsafeBufferPointer { r0 in
                    try nodes[1].withUnsafeBufferPointer { r1 in
                        try nodes[2].withUnsafeBufferPointer { r2 in
                            try nodes[3].withUnsafeBufferPointer { r3 in
                                try outputs.withUnsafeMutableBufferPointer { out in
                                    let jobs = [r0, r1, r2, r3].enumerated().map { i, r in
                                        GradientHistograms.Job(rows: r.baseAddress!, count: r.count,
                                                               output: out.baseAddress! + i * histograms.size)
                                    }
                                    try histograms.build(jobs, values: v.baseAddress!)
                                }
                            }
                        }
                    }
                }
            }
            return ((0..<4).map { Array(outputs[($0 * histograms.size)..<(($0 + 1) * histograms.size)]) }, histograms.partLimit)
        }
        // By hand: every row's values added to its bin of every feature.
        var expected = [[Double]](repeating: [Double](repeating: 0, count: data.totalBins * width), count: 4)
        for (n, node) in nodes.enumerated() {
            for r in node {
                for f in 0..<3 {
                    let bin = Int(data.binOffsets[f]) + Int(data.bins[Int(r) * 3 + f])
                    for j in 0..<width { expected[n][bin * width + j] += Double(values[Int(r) * width + j]) }
                }
            }
        }
        // A budget of 8 MB: up to 8 parts; of 2 histograms: up to 3 parts, so batches of nodes {0, 1}, {2}, {3};
        // none: 1 part.
        for (budget, parts) in [(8 << 20, 8), (2 * perHistogram, 3), (0, 1)] {
            let (one, limit) = try build(budget: budget, threads: 1)
            let (two, _) = try build(budget: budget, threads: 2)
            #expect(limit == parts)
            #expect(one == two)
            for n in 0..<4 {
                let worst = zip(one[n], expected[n]).map { abs($0 - $1) }.max() ?? .infinity
                #expect(worst < 1e-6, "node \(n), budget \(budget)")
            }
        }
    }

    @Test("A regression tree on targets far from zero (1.7e9 + a pattern) predicts the exact leaf means")
    func largeTargetOffset() throws {
        // Feature x in 0..<8, three rows each; targets 1.7e9 + 3x + {0.125, 0.5, 0.875}: a depth-3
        // tree on a linear trend of 8 equal groups splits in the middles, so each leaf is one x and
        // its mean is 1.7e9 + 3x + 0.5 (a float of 1.7e9 is a multiple of 128: off by tens without centering).
        let x = (0..<24).map { Double($0 / 3) }
        let y = (0..<24).map { r in 1.7e9 + 3 * x[r] + [0.125, 0.5, 0.875][r % 3] }
        let fit = try Self.decisionTree([x], [.numeric], y, growth: TreeGrowthParameters(maxDepth: 3, minChildWeight: 1))
        #expect(fit.baseValues == [1.7e9 + 3 * 3.5 + 0.5])
        let predictions = fit.predictions(columns: [x])
        for r in 0..<24 {
            #expect(abs(predictions[r] - (1.7e9 + 3 * x[r] + 0.5)) < 1e-3, "row \(r): \(predictions[r])")
        }
        // A bagged forest: the mean plus the average of its trees' leaf offsets — averages of targets,
        // so within the targets' range (a float of any of them is 1.7e9, below it).
        let data = try BinnedFeatures(columns: [x], kinds: [.numeric])
        let forest = try RandomForestTrees(task: .regression, growth: TreeGrowthParameters(maxDepth: 3, bootstrap: true),
                                           treeCount: 4)
            .fit(training: data, targets: y, validation: nil) { _ in true }
        for (r, p) in forest.predictions(columns: [x]).enumerated() {
            #expect(p >= 1.7e9 + 0.125 - 1e-3 && p <= 1.7e9 + 21.875 + 1e-3, "row \(r): \(p)")
        }
    }

    @Test("Early stopping keeps the trees of the best validation loss")
    func earlyStopping() throws {
        var random = TreeTrainingRandom(seed: 3)
        let x = (0..<600).map { _ in Double(random.below(50)) }
        let y = x.map { _ in random.unit() }            // noise: the validation loss soon rises
        let data = try BinnedFeatures(columns: [Array(x[..<400])], kinds: [.numeric])
        let validation = try data.binning(columns: [Array(x[400...])])
        let booster = GradientBoostedTrees(objective: .squaredError, growth: TreeGrowthParameters(maxDepth: 4),
                                           iterations: 100, stepSize: 0.5, earlyStoppingRounds: 3)
        var reports = [TreeTrainingIteration]()
        let fit = try booster.fit(training: data, targets: Array(y[..<400]), validation: (validation, Array(y[400...]))) {
            reports.append($0)
            return true
        }
        let losses = reports.map { $0.validationLoss! }
        let best = losses.indices.min { losses[$0] < losses[$1] }!
        #expect(reports.count < 100)
        #expect(fit.bestIteration == best)
        #expect(reports.count == best + 1 + 3)
        #expect(fit.trees.count == best + 1)
        // The kept model scores the validation rows at the best loss.
        let scores = fit.scores(columns: [Array(x[400...])])
        let rmse = (zip(scores, y[400...]).map { ($0 - $1) * ($0 - $1) }.reduce(0, +) / 200).squareRoot()
        #expect(abs(rmse - losses[best]) < 1e-9)
    }

    @Test("One thread or two: the same trees")
    func threadInvariance() throws {
        var random = TreeTrainingRandom(seed: 11)
        let rows = 100_000
        let columns = (0..<6).map { f in (0..<rows).map { _ in random.unit() < 0.05 ? .nan : random.unit() * Double(f + 1) } }
        let y = (0..<rows).map { r in columns[0][r].isNaN ? 1.0 : (columns[0][r] + columns[1][r] > 1 ? 2 : 0) }
        let data = try BinnedFeatures(columns: columns, kinds: Array(repeating: .numeric, count: 6))
        func train(_ threads: Int) throws -> TreeEnsembleFit {
            let growth = TreeGrowthParameters(maxDepth: 5, rowSubsample: 0.8, columnSubsample: 0.7, threads: threads)
            return try GradientBoostedTrees(objective: .softmax(classCount: 3), growth: growth, iterations: 3,
                                            stepSize: 0.3, earlyStoppingRounds: nil)
                .fit(training: data, targets: y, validation: nil) { _ in true }
        }
        let one = try train(1), two = try train(2)
        #expect(one.trees == two.trees)
        #expect(one.trees.count == 9)
    }

    @Test("A forest's class shares sum to one; a forest's trees differ")
    func forest() throws {
        var random = TreeTrainingRandom(seed: 5)
        let rows = 500
        let columns = (0..<4).map { _ in (0..<rows).map { _ in random.unit() } }
        let y = (0..<rows).map { r in columns[0][r] > 0.5 ? (columns[1][r] > 0.3 ? 2.0 : 1.0) : 0.0 }
        let data = try BinnedFeatures(columns: columns, kinds: Array(repeating: .numeric, count: 4))
        let growth = TreeGrowthParameters(maxDepth: 4, minChildWeight: 1, rowSubsample: 0.8, columnSubsample: 0.75, bootstrap: true)
        var reports = 0
        let fit = try RandomForestTrees(task: .classification(classCount: 3), growth: growth, treeCount: 5)
            .fit(training: data, targets: y, validation: nil) { _ in
                reports += 1
                return true
            }
        #expect(reports == 5 && fit.trees.count == 5 && fit.transform == .none)
        #expect(fit.trees[0] != fit.trees[1])
        let scores = fit.scores(columns: columns)
        var correct = 0
        for r in 0..<rows {
            let p = Array(scores[(3 * r)..<(3 * r + 3)])
            #expect(abs(p.reduce(0, +) - 1) < 1e-9)
            if p.indices.max(by: { p[$0] < p[$1] }) == Int(y[r]) { correct += 1 }
        }
        #expect(correct > rows * 9 / 10)
    }

    @Test("Bad data and parameters are errors naming the place")
    func errors() throws {
        #expect(throws: TreeTrainingError.self) { try BinnedFeatures(columns: [[]], kinds: [.numeric]) }
        #expect(throws: TreeTrainingError.self) { try BinnedFeatures(columns: [], kinds: []) }
        #expect(throws: TreeTrainingError.self) { try BinnedFeatures(columns: [[1, 2], [1]], kinds: [.numeric, .numeric]) }
        do {
            _ = try BinnedFeatures(columns: [[1, 2, 3], [1, 2, -.infinity]], kinds: [.numeric, .numeric])
            Issue.record("an infinite value was binned")
        } catch let error as TreeTrainingError {
            #expect(error.location == "feature 1, row 2")
            #expect(error.tableCell?.feature == 1 && error.tableCell?.row == 2)
        }
        #expect(throws: TreeTrainingError.self) { try BinnedFeatures(columns: [[1, 2]], kinds: [.numeric], maxBins: 300) }
        let data = try BinnedFeatures(columns: [[1, 2, 3, 4]], kinds: [.numeric])
        func boost(_ objective: TreeObjective, _ y: [Double], growth: TreeGrowthParameters = .init(),
                   iterations: Int = 2, stepSize: Double = 0.3) throws {
            _ = try GradientBoostedTrees(objective: objective, growth: growth, iterations: iterations, stepSize: stepSize,
                                         earlyStoppingRounds: nil).fit(training: data, targets: y, validation: nil) { _ in true }
        }
        do {
            try boost(.squaredError, [1, .nan, 2, 3])
            Issue.record("a NaN target trained")
        } catch let error as TreeTrainingError {
            #expect(error.location == "training targets row 1")
        }
        #expect(throws: TreeTrainingError.self) { try boost(.logistic, [0, 1, 2, 0]) }
        #expect(throws: TreeTrainingError.self) { try boost(.softmax(classCount: 3), [0, 1, 3, 0]) }
        #expect(throws: TreeTrainingError.self) { try boost(.softmax(classCount: 3), [0, 1]) }
        #expect(throws: TreeTrainingError.self) { try boost(.squaredError, [1, 2, 3, 4], growth: .init(maxDepth: 0)) }
        #expect(throws: TreeTrainingError.self) { try boost(.squaredError, [1, 2, 3, 4], growth: .init(rowSubsample: 0)) }
        #expect(throws: TreeTrainingError.self) { try boost(.squaredError, [1, 2, 3, 4], growth: .init(columnSubsample: 1.5)) }
        #expect(throws: TreeTrainingError.self) { try boost(.squaredError, [1, 2, 3, 4], iterations: 0) }
        #expect(throws: TreeTrainingError.self) { try boost(.squaredError, [1, 2, 3, 4], stepSize: .nan) }
        #expect(throws: TreeTrainingError.self) {
            _ = try RandomForestTrees(task: .classification(classCount: 2), growth: .init(), treeCount: 1)
                .fit(training: data, targets: [0, 1, 2, 1], validation: nil) { _ in true }
        }
        let otherCuts = try BinnedFeatures(columns: [[5, 6, 7, 8, 9]], kinds: [.numeric])
        #expect(throws: TreeTrainingError.self) {
            _ = try GradientBoostedTrees(objective: .squaredError, growth: .init(), iterations: 1, stepSize: 0.3, earlyStoppingRounds: 1)
                .fit(training: data, targets: [1, 2, 3, 4], validation: (otherCuts, [1, 2, 3, 4, 5])) { _ in true }
        }
    }
}

@Suite("Tree growth past the histogram budget")
struct TreeGrowthBudgetTests {
    @Test("Histograms built directly (no room to keep a level's) give the same tree as by subtraction")
    func directHistograms() throws {
        var random = TreeTrainingRandom(seed: 21)
        let rows = 3000
        let columns = (0..<3).map { _ in (0..<rows).map { _ in random.unit() < 0.1 ? .nan : Double(random.below(30)) } }
        let data = try BinnedFeatures(columns: columns, kinds: [.numeric, .numeric, .categorical(count: 30)])
        let values = (0..<rows).flatMap { r -> [Float] in
            let x = columns[0][r].isNaN ? 5 : columns[0][r]
            return [Float(sin(x) + random.unit() - 0.5), 1]
        }
        let growth = TreeGrowthParameters(maxDepth: 7, minChildWeight: 1)
        var grower = TreeGrower(data: data, outputs: 1, growth: growth, lambda: 1)
        let all = (0..<rows).map { UInt32($0) }
        let kept = try values.withUnsafeBufferPointer { try grower.grow(rows: all, values: $0.baseAddress!, features: [0, 1, 2]) }
        grower.histogramBudget = 1  // one node's histogram at a time
        let direct = try values.withUnsafeBufferPointer { try grower.grow(rows: all, values: $0.baseAddress!, features: [0, 1, 2]) }
        let leaf: ([Double]) -> [Double] = { [-$0[0] / ($0[1] + 1)] }
        let a = kept.trained(data, outputDimension: 0, leafValues: leaf)
        let b = direct.trained(data, outputDimension: 0, leafValues: leaf)
        #expect(a.depth == 7)
        #expect(a.nodes.count == b.nodes.count)
        for (x, y) in zip(a.nodes, b.nodes) {
            #expect(x.feature == y.feature && x.test == y.test && x.missingGoesToTrueChild == y.missingGoesToTrueChild)
            for (u, v) in zip(x.values, y.values) { #expect(abs(u - v) < 1e-9) }
        }
    }
}
