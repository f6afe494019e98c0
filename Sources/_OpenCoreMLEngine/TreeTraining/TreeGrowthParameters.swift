/// How each tree grows: depthwise to `maxDepth`, keeping a split only when it reduces the loss
/// by more than `minLossReduction` and leaves each child a hessian sum of at least `minChildWeight`.
///
/// The loss reduction is XGBoost's: `G_L²/(H_L+λ) + G_R²/(H_R+λ) − G²/(H+λ)`, without the ½ of the
/// paper, and `minLossReduction` (γ) prunes after growth as XGBoost's does — bottom-up, a split
/// whose children are leaves and whose reduction is below γ becomes a leaf — so a weak split above
/// a strong one stays.
package struct TreeGrowthParameters: Sendable {
    package var maxDepth: Int
    package var minLossReduction: Double
    package var minChildWeight: Double
    package var l2Regularization: Double
    /// The share of rows each iteration (boosting) or tree (forests) trains on, in (0, 1].
    package var rowSubsample: Double
    /// The share of features each tree may split on, in (0, 1].
    package var columnSubsample: Double
    /// Forests: draw the rows with replacement.
    package var bootstrap: Bool
    package var randomSeed: UInt64
    /// The most threads training uses (nil: the kernels' thread count). The result does not depend on it.
    package var threads: Int?

    package init(maxDepth: Int = 6, minLossReduction: Double = 0, minChildWeight: Double = 1,
                 l2Regularization: Double = 1, rowSubsample: Double = 1, columnSubsample: Double = 1,
                 bootstrap: Bool = false, randomSeed: UInt64 = 42, threads: Int? = nil) {
        self.maxDepth = maxDepth
        self.minLossReduction = minLossReduction
        self.minChildWeight = minChildWeight
        self.l2Regularization = l2Regularization
        self.rowSubsample = rowSubsample
        self.columnSubsample = columnSubsample
        self.bootstrap = bootstrap
        self.randomSeed = randomSeed
        self.threads = threads
    }

    /// The deepest tree allowed: 2^depth leaves must stay countable.
    package static let maxAllowedDepth = 30

    func validate() throws {
        guard (1...Self.maxAllowedDepth).contains(maxDepth) else {
            throw TreeTrainingError("maxDepth", "must be in 1...\(Self.maxAllowedDepth), not \(maxDepth)")
        }
        guard minLossReduction.isFinite, minLossReduction >= 0 else {
            throw TreeTrainingError("minLossReduction", "must be finite and >= 0, not \(minLossReduction)")
        }
        guard minChildWeight.isFinite, minChildWeight >= 0 else {
            throw TreeTrainingError("minChildWeight", "must be finite and >= 0, not \(minChildWeight)")
        }
        guard l2Regularization.isFinite, l2Regularization >= 0 else {
            throw TreeTrainingError("l2Regularization", "must be finite and >= 0, not \(l2Regularization)")
        }
        guard rowSubsample > 0, rowSubsample <= 1 else {
            throw TreeTrainingError("rowSubsample", "must be in (0, 1], not \(rowSubsample)")
        }
        guard columnSubsample > 0, columnSubsample <= 1 else {
            throw TreeTrainingError("columnSubsample", "must be in (0, 1], not \(columnSubsample)")
        }
        if let threads, threads < 1 {
            throw TreeTrainingError("threads", "must be >= 1, not \(threads)")
        }
    }

    /// The thread slots to pass to `parallelForEach`.
    var slots: Int { threads ?? Int(Int32.max) }
}
