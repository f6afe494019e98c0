import OpenCoreML

extension TabularColumns {
    /// Throws `CreateMLError` naming the target column when a classifier's per-class working
    /// memory would pass `memoryLimit` bytes (default: `OpenCoreMLRuntime.defaultMemoryLimit`,
    /// half of the physical memory): `classes × cellsPerClass × bytesPerCell` bytes, the scores,
    /// gradients and histograms a trainer sizes by the class count. Checked before training,
    /// so a target of hundreds of thousands of distinct labels (an identifier picked by mistake)
    /// is one clear error instead of a multi-terabyte allocation.
    func checkClassesFit(classes: Int, cellsPerClass: Int, bytesPerCell: Int, trainer: String,
                         memoryLimit: Int = OpenCoreMLRuntime.defaultMemoryLimit) throws {
        let (cells, overflow) = classes.multipliedReportingOverflow(by: cellsPerClass)
        let (bytes, overflow2) = cells.multipliedReportingOverflow(by: bytesPerCell)
        guard overflow || overflow2 || bytes > memoryLimit else { return }
        let size = overflow || overflow2 ? "more than \(Int.max) bytes" : "\(bytes / (1 << 20)) MiB"
        throw CreateMLError("column '\(targetColumn)'",
                            "\(classes) distinct labels: \(trainer) would need \(size) for its per-class scores, over the memory limit of \(memoryLimit / (1 << 20)) MiB (is the column an identifier? a numeric target can be regressed instead)")
    }
}
