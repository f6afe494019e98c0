import Foundation

/// Gradient boosting by histograms, as XGBoost's `tree_method="hist"` with depthwise growth: each
/// iteration computes every row's gradient and hessian from the current scores, grows one tree per
/// output on them (a sample of the rows per iteration, of the features per tree), and adds
/// `stepSize · −G/(H+λ)` of each leaf to its rows' scores (0 for a leaf whose hessian sum is below
/// `minChildWeight`, as XGBoost).
package struct GradientBoostedTrees: Sendable {
    package var objective: TreeObjective
    package var growth: TreeGrowthParameters
    package var iterations: Int
    package var stepSize: Double
    /// Stop when the validation loss has not improved for this many iterations, keeping the trees
    /// of the best iteration (needs validation rows; ignored without).
    package var earlyStoppingRounds: Int?

    package init(objective: TreeObjective, growth: TreeGrowthParameters, iterations: Int, stepSize: Double,
                 earlyStoppingRounds: Int?) {
        self.objective = objective
        self.growth = growth
        self.iterations = iterations
        self.stepSize = stepSize
        self.earlyStoppingRounds = earlyStoppingRounds
    }

    /// Trains on `training` (targets: values, or class indices as Doubles). `progress` sees each
    /// iteration; returning false stops training, keeping the trees so far.
    package func fit(training: BinnedFeatures, targets: [Double], validation: (BinnedFeatures, [Double])?,
                     progress: (TreeTrainingIteration) -> Bool) throws -> TreeEnsembleFit {
        try growth.validate()
        try objective.validate()
        guard iterations >= 1 else { throw TreeTrainingError("iterations", "must be >= 1, not \(iterations)") }
        guard stepSize.isFinite, stepSize > 0 else { throw TreeTrainingError("stepSize", "must be finite and > 0, not \(stepSize)") }
        if let rounds = earlyStoppingRounds, rounds < 1 {
            throw TreeTrainingError("earlyStoppingRounds", "must be >= 1, not \(rounds)")
        }
        try objective.checkTargets(targets, rows: training.rowCount, place: "training targets")
        if let (data, y) = validation {
            try checkSameBinning(data, training)
            try objective.checkTargets(y, rows: data.rowCount, place: "validation targets")
        }
        let n = training.rowCount
        let d = objective.dimensions
        let slots = growth.slots
        let base = objective.baseScores(targets)
        var scores = [Double](repeating: 0, count: try checkedProduct(n, d, "training scores"))
        for r in 0..<n { for k in 0..<d { scores[r * d + k] = base[k] } }
        var validationScores = [Double]()
        if let (data, _) = validation {
            validationScores = [Double](repeating: 0, count: try checkedProduct(data.rowCount, d, "validation scores"))
            for r in 0..<data.rowCount { for k in 0..<d { validationScores[r * d + k] = base[k] } }
        }
        var gradients = [Float](repeating: 0, count: try checkedProduct(try checkedProduct(n, d, "gradients"), 2, "gradients"))
        let allRows = (0..<n).map { UInt32(truncatingIfNeeded: $0) }
        let sampledRows = growth.rowSubsample < 1 ? max(1, Int((growth.rowSubsample * Double(n)).rounded())) : n
        let featureCount = training.featureCount
        let sampledFeatures = max(1, Int((growth.columnSubsample * Double(featureCount)).rounded()))
        var random = TreeTrainingRandom(seed: growth.randomSeed)
        let grower = TreeGrower(data: training, outputs: 1, growth: growth, lambda: growth.l2Regularization)
        let lambda = growth.l2Regularization, minChildWeight = growth.minChildWeight, eta = stepSize
        let leafValue: ([Double]) -> [Double] = { sums in
            let h = sums[1]
            if h < minChildWeight || h <= 0 { return [0] }
            return [-sums[0] / (h + lambda) * eta]
        }

        // One pass over the rows per round makes the next round's gradients and this round's
        // training loss and metric from the same scores (the first round's gradients on their own).
        func gradientsAndMeasure(gradients wanted: Bool, measure: Bool) -> (loss: Double, metric: Double) {
            scores.withUnsafeBufferPointer { scoreBuffer in
                targets.withUnsafeBufferPointer { targetBuffer in
                    gradients.withUnsafeMutableBufferPointer { gradientBuffer in
                        objective.gradientsAndMeasure(scores: scoreBuffer.baseAddress!, targets: targetBuffer.baseAddress!, rows: n,
                                                      gradients: wanted ? gradientBuffer.baseAddress! : nil, measure: measure,
                                                      slots: slots)
                    }
                }
            }
        }
        _ = gradientsAndMeasure(gradients: true, measure: false)

        var trees = [TrainedTree]()
        var bestIteration = -1, bestLoss = Double.infinity
        for iteration in 0..<iterations {
            let start = Date()
            let rows = sampledRows < n ? random.sample(sampledRows, of: n) : allRows
            var grownTrees = [(TreeGrower.Grown, Int)]()
            try gradients.withUnsafeBufferPointer { gradientBuffer in
                for k in 0..<d {
                    let features = sampledFeatures < featureCount
                        ? random.choose(sampledFeatures, of: featureCount).map { Int32($0) }
                        : (0..<featureCount).map { Int32($0) }
                    let grown = try grower.grow(rows: rows, values: gradientBuffer.baseAddress! + k * 2 * n, features: features)
                    grownTrees.append((grown, k))
                }
            }
            for (grown, k) in grownTrees {
                trees.append(grown.trained(training, outputDimension: k, leafValues: leafValue))
                // Routing tables only for rows the tree did not train on.
                let routing = sampledRows < n || validation != nil
                    ? BinnedTreeRouting(grown, data: training, width: 1, leafValues: leafValue) : nil
                scores.withUnsafeMutableBufferPointer { out in
                    if let routing, sampledRows < n {
                        routing.addScores(training, to: out.baseAddress!, dimensions: d, outputDimension: k, slots: slots)
                    } else {
                        addLeafValues(grown, leafValue: leafValue, to: out.baseAddress!, dimensions: d, output: k, slots: slots)
                    }
                }
                if let (data, _) = validation, let routing {
                    validationScores.withUnsafeMutableBufferPointer { out in
                        routing.addScores(data, to: out.baseAddress!, dimensions: d, outputDimension: k, slots: slots)
                    }
                }
            }
            let (trainingLoss, trainingMetric) = gradientsAndMeasure(gradients: iteration + 1 < iterations, measure: true)
            var validationLoss: Double?, validationMetric: Double?
            if let (_, y) = validation {
                (validationLoss, validationMetric) = validationScores.withUnsafeBufferPointer {
                    objective.evaluate(scores: $0.baseAddress!, targets: y, slots: slots)
                }
            }
            let report = TreeTrainingIteration(iteration: iteration, trainingLoss: trainingLoss, validationLoss: validationLoss,
                                               trainingMetric: trainingMetric, validationMetric: validationMetric,
                                               seconds: Date().timeIntervalSince(start))
            let loss = validationLoss ?? trainingLoss
            if earlyStoppingRounds == nil || validation == nil || loss < bestLoss {
                bestLoss = loss
                bestIteration = iteration
            }
            let keepGoing = progress(report)
            if let rounds = earlyStoppingRounds, validation != nil, iteration - bestIteration >= rounds { break }
            if !keepGoing { break }
        }
        if earlyStoppingRounds == nil || validation == nil { bestIteration = trees.count / d - 1 }
        let allKept = trees.count == (bestIteration + 1) * d
        trees.removeSubrange(((bestIteration + 1) * d)...)
        var fit = TreeEnsembleFit(trees: trees, baseValues: base, dimensions: d,
                                  transform: objective == .squaredError ? .none : (d == 1 ? .logistic : .softmax),
                                  bestIteration: bestIteration)
        if allKept {
            fit.trainingScores = scores
            if validation != nil { fit.validationScores = validationScores }
        }
        return fit
    }
}

/// Adds each leaf's value to the scores of the rows it holds (every row trained on, once), the
/// leaves on every thread (each row is in one leaf: no two threads add to one score).
func addLeafValues(_ grown: TreeGrower.Grown, leafValue: ([Double]) -> [Double], to scores: UnsafeMutablePointer<Double>,
                   dimensions: Int, output: Int, slots: Int) {
    let leaves = grown.leaves.map { (node: grown.nodes[$0], values: leafValue(grown.nodes[$0].sums)) }
    grown.rows.withUnsafeBufferPointer { rows in
        parallelForEach(leaves.count, slots: slots) { _, l in
            let (node, values) = leaves[l]
            if values.count == 1 {
                // Boosting's one value per leaf, kept in a register.
                let v = values[0], target = scores + output
                for i in node.begin..<node.end { target[Int(rows[i]) * dimensions] += v }
                return
            }
            for i in node.begin..<node.end {
                let r = Int(rows[i])
                for (k, v) in values.enumerated() { scores[r * dimensions + output + k] += v }
            }
        }
    }
}

/// Validation rows must be binned with the training rows' cuts.
func checkSameBinning(_ other: BinnedFeatures, _ training: BinnedFeatures) throws {
    guard other.kinds == training.kinds, other.cuts == training.cuts, other.valueBinCounts == training.valueBinCounts else {
        throw TreeTrainingError("validation", "the validation rows must be binned by `binning(columns:)` of the training rows")
    }
}
