import Foundation

/// Random forests and single decision trees: trees grown on one-hot targets (classes) or the
/// targets (regression) by squared error — for classes the same splits as the Gini decrease —
/// with λ = 0 whatever `growth.l2Regularization` says (so leaves are plain shares and means).
/// Leaves hold class shares (classification) or means (regression) divided by the number of
/// trees, so the forest's output is the sum of its trees' leaves: no transform. Each tree trains on
/// a sample of the rows (with replacement when `growth.bootstrap`) and of the features.
/// A decision tree is a forest of one tree without bootstrap or subsampling.
package struct RandomForestTrees: Sendable {
    package enum Task: Sendable, Equatable {
        case classification(classCount: Int)
        case regression
    }

    package var task: Task
    package var growth: TreeGrowthParameters
    package var treeCount: Int

    package init(task: Task, growth: TreeGrowthParameters, treeCount: Int) {
        self.task = task
        self.growth = growth
        self.treeCount = treeCount
    }

    private var outputs: Int {
        if case .classification(let k) = task { return k }
        return 1
    }

    package func fit(training: BinnedFeatures, targets: [Double], validation: (BinnedFeatures, [Double])?,
                     progress: (TreeTrainingIteration) -> Bool) throws -> TreeEnsembleFit {
        try growth.validate()
        guard treeCount >= 1 else { throw TreeTrainingError("treeCount", "must be >= 1, not \(treeCount)") }
        if case .classification(let k) = task, k < 1 {
            throw TreeTrainingError("classCount", "must be >= 1, not \(k)")
        }
        try checkTargets(targets, rows: training.rowCount, place: "training targets")
        if let (data, y) = validation {
            try checkSameBinning(data, training)
            try checkTargets(y, rows: data.rowCount, place: "validation targets")
        }
        let n = training.rowCount
        let k = outputs, width = k + 1
        let slots = growth.slots
        // Per row: −(one-hot target) or −target, then a hessian of 1: a leaf's −G/H is its share or mean.
        var values = [Float](repeating: 0, count: try checkedProduct(n, width, "forest targets"))
        for r in 0..<n {
            switch task {
            case .classification: values[r * width + Int(targets[r])] = -1
            case .regression: values[r * width] = Float(-targets[r])
            }
            values[r * width + k] = 1
        }
        let sampled = growth.bootstrap || growth.rowSubsample < 1
            ? max(1, Int((growth.rowSubsample * Double(n)).rounded())) : n
        let featureCount = training.featureCount
        let sampledFeatures = max(1, Int((growth.columnSubsample * Double(featureCount)).rounded()))
        let grower = TreeGrower(data: training, outputs: k, growth: growth, lambda: 0)
        let leafValues: ([Double]) -> [Double] = { sums in
            let h = sums[k]
            return (0..<k).map { h > 0 ? -sums[$0] / h : 0 }
        }
        var sumScores = [Double](repeating: 0, count: try checkedProduct(n, k, "training scores"))
        var validationSums = [Double](repeating: 0, count: try checkedProduct(validation?.0.rowCount ?? 0, k, "validation scores"))
        var trees = [TrainedTree]()
        for t in 0..<treeCount {
            let start = Date()
            var random = TreeTrainingRandom(seed: growth.randomSeed, stream: UInt64(t) + 1)
            let rows: [UInt32]
            if growth.bootstrap {
                rows = random.bootstrap(sampled, of: n)
            } else if sampled < n {
                rows = random.sample(sampled, of: n)
            } else {
                rows = (0..<n).map { UInt32(truncatingIfNeeded: $0) }
            }
            let features = sampledFeatures < featureCount
                ? random.choose(sampledFeatures, of: featureCount).map { Int32($0) }
                : (0..<featureCount).map { Int32($0) }
            let grown = try values.withUnsafeBufferPointer { v in
                try grower.grow(rows: rows, values: v.baseAddress!, features: features)
            }
            trees.append(grown.trained(training, outputDimension: 0, leafValues: leafValues))
            let routing = BinnedTreeRouting(grown, data: training, width: k, leafValues: leafValues)
            sumScores.withUnsafeMutableBufferPointer {
                routing.addScores(training, to: $0.baseAddress!, dimensions: k, outputDimension: 0, slots: slots)
            }
            let (trainingLoss, trainingMetric) = evaluate(sumScores, trees: t + 1, targets: targets)
            var validationLoss: Double?, validationMetric: Double?
            if let (data, y) = validation {
                validationSums.withUnsafeMutableBufferPointer {
                    routing.addScores(data, to: $0.baseAddress!, dimensions: k, outputDimension: 0, slots: slots)
                }
                (validationLoss, validationMetric) = evaluate(validationSums, trees: t + 1, targets: y)
            }
            let report = TreeTrainingIteration(iteration: t, trainingLoss: trainingLoss, validationLoss: validationLoss,
                                               trainingMetric: trainingMetric, validationMetric: validationMetric,
                                               seconds: Date().timeIntervalSince(start))
            if !progress(report) { break }
        }
        // Leaves divided by the number of trees kept, so the forest sums to their average.
        let scale = 1 / Double(trees.count)
        for i in trees.indices {
            for j in trees[i].nodes.indices where trees[i].nodes[j].isLeaf {
                trees[i].nodes[j].values = trees[i].nodes[j].values.map { $0 * scale }
            }
        }
        return TreeEnsembleFit(trees: trees, baseValues: [Double](repeating: 0, count: k), dimensions: k,
                               transform: .none, bestIteration: trees.count - 1)
    }

    private func checkTargets(_ targets: [Double], rows: Int, place: String) throws {
        guard targets.count == rows else { throw TreeTrainingError(place, "\(targets.count) targets for \(rows) rows") }
        for (r, y) in targets.enumerated() {
            switch task {
            case .regression:
                if !y.isFinite { throw TreeTrainingError("\(place) row \(r)", "the target \(y) is not finite") }
            case .classification(let k):
                if !(y >= 0 && y < Double(k) && y == y.rounded()) {
                    throw TreeTrainingError("\(place) row \(r)", "the class index \(y) is not in 0..<\(k)")
                }
            }
        }
    }

    /// Loss and metric of the first `trees` trees' average (`sums` holds their sum).
    private func evaluate(_ sums: [Double], trees: Int, targets: [Double]) -> (Double, Double) {
        let n = targets.count
        let scale = 1 / Double(trees)
        switch task {
        case .regression:
            let squares = fixedBlockSum(n, slots: growth.slots) { r in
                let e = sums[r] * scale - targets[r]
                return e * e
            }
            let rmse = (squares / Double(n)).squareRoot()
            return (rmse, rmse)
        case .classification(let k):
            let loss = fixedBlockSum(n, slots: growth.slots) { r in
                -log(min(max(sums[r * k + Int(targets[r])] * scale, 1e-15), 1))
            }
            let right = fixedBlockSum(n, slots: growth.slots) { r in
                var best = 0
                for j in 1..<k where sums[r * k + j] > sums[r * k + best] { best = j }
                return best == Int(targets[r]) ? 1 : 0
            }
            return (loss / Double(n), right / Double(n))
        }
    }
}
