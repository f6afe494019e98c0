/// A batch provider whose examples already sit in memory as float rows and class indices, so that
/// training can use them in place instead of converting every example's features (used by
/// OpenCreateML's data sets; other providers go through `features(at:)`).
package protocol ContiguousTrainingData: MLBatchProvider {
    /// Every example's values of `feature`, `count × width` finite numbers row after row, or nil
    /// when the provider does not hold that feature so (or not at this width).
    func contiguousValues(of feature: String, width: Int) -> [Float]?
    /// Every example's class index for the label `feature` (indices into the model's class labels,
    /// or plain indices for an index target), or nil when the provider does not hold them so.
    func classIndices(of feature: String) -> [Int]?
}
