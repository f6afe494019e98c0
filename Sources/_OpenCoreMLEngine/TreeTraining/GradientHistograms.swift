import _OpenCoreMLKernels

/// Gradient histograms of tree nodes: per node, per bin of every feature (`BinnedFeatures.totalBins`),
/// `width` sums (the outputs' gradients, then the hessian), as doubles.
///
/// A node's rows are cut into blocks of `blockRows` (boundaries fixed by the row count alone); each
/// block gets its own histogram on whichever thread is free, and the blocks are added in order, so
/// the sums — and the trees — do not depend on the number of threads.
struct GradientHistograms {
    static let blockRows = 1 << 15

    let data: BinnedFeatures
    let width: Int
    /// Doubles per node histogram.
    let size: Int
    let features: [Int32]
    let slots: Int

    init(data: BinnedFeatures, width: Int, features: [Int32], slots: Int) throws {
        self.data = data
        self.width = width
        self.size = try checkedProduct(data.totalBins, width, "histogram")
        self.features = features
        self.slots = slots
    }

    /// One node to build: its rows and where its histogram goes (`size` doubles).
    struct Job {
        var rows: UnsafePointer<UInt32>
        var count: Int
        var output: UnsafeMutablePointer<Double>
    }

    /// Builds every job's histogram (threads over nodes and blocks of rows).
    func build(_ jobs: [Job], values: UnsafePointer<Float>) throws {
        guard !jobs.isEmpty else { return }
        // (job, block) pairs; every block past a job's first sums into its own scratch histogram.
        var items = [(job: Int, block: Int, scratch: Int)]()
        var scratchCount = 0
        for (j, job) in jobs.enumerated() {
            let blocks = max(1, (job.count + Self.blockRows - 1) / Self.blockRows)
            for b in 0..<blocks {
                items.append((j, b, b == 0 ? -1 : scratchCount))
                if b > 0 { scratchCount += 1 }
            }
        }
        let scratchSize = try checkedProduct(scratchCount, size, "histogram blocks")
        var scratch = [Double](repeating: 0, count: scratchSize)
        let size = self.size, width = self.width
        let stride = data.featureCount
        data.bins.withUnsafeBufferPointer { bins in
            data.binOffsets.withUnsafeBufferPointer { offsets in
                features.withUnsafeBufferPointer { features in
                    scratch.withUnsafeMutableBufferPointer { scratch in
                        let scratchBase = scratch.baseAddress
                        parallelForEach(items.count, slots: slots) { _, i in
                            let item = items[i]
                            let job = jobs[item.job]
                            let target: UnsafeMutablePointer<Double>
                            if item.scratch < 0 {
                                target = job.output
                                target.update(repeating: 0, count: size)
                            } else {
                                target = scratchBase! + item.scratch * size
                            }
                            let begin = item.block * Self.blockRows
                            let end = min(job.count, begin + Self.blockRows)
                            ocm_histogram_accumulate(bins.baseAddress, stride, job.rows + begin, end - begin, values,
                                                     Int32(width), features.baseAddress, Int32(features.count),
                                                     offsets.baseAddress, target)
                        }
                        // Blocks added in order: each job's histogram split into slices over threads.
                        let sliceSize = 4096
                        let slices = (size + sliceSize - 1) / sliceSize
                        let reduced = items.filter { $0.scratch >= 0 }
                        guard !reduced.isEmpty else { return }
                        let jobsWithBlocks = Array(Set(reduced.map(\.job))).sorted()
                        parallelForEach(jobsWithBlocks.count * slices, slots: slots) { _, i in
                            let j = jobsWithBlocks[i / slices]
                            let start = (i % slices) * sliceSize
                            let length = min(sliceSize, size - start)
                            for item in reduced where item.job == j {
                                ocm_histogram_add(jobs[j].output + start, scratchBase! + item.scratch * size + start, length)
                            }
                        }
                    }
                }
            }
        }
    }

    /// `sibling = parent − built`.
    func subtract(parent: UnsafePointer<Double>, built: UnsafePointer<Double>, into sibling: UnsafeMutablePointer<Double>) {
        ocm_histogram_subtract(sibling, parent, built, size)
    }
}
