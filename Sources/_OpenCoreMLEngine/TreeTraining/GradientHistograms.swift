import _OpenCoreMLKernels

/// Gradient histograms of tree nodes: per node, per bin of every feature (`BinnedFeatures.totalBins`),
/// `width` sums (the outputs' gradients, then the hessian), as doubles.
///
/// A node's rows are cut into up to `partLimit` parts of whole blocks of `blockRows` (boundaries
/// fixed by the row count and the histogram's size alone); each part is summed into its own
/// histogram on whichever thread is free, and the parts are added in order, so the sums — and
/// the trees — do not depend on the number of threads. The parts past a node's first need scratch
/// histograms: at most `partLimit − 1` at a time, within `scratchBudget` bytes, whatever the rows.
struct GradientHistograms {
    static let blockRows = 1 << 15
    /// The most parts a node's rows are summed in: work for a few threads at the root.
    static let maxParts = 8
    /// The most bytes of scratch histograms (a wide histogram — a forest of many classes — gets fewer parts).
    static let scratchBudget = 64 << 20

    let data: BinnedFeatures
    let width: Int
    /// Doubles per node histogram.
    let size: Int
    let features: [Int32]
    let slots: Int
    /// The most parts a node's rows are summed in, for this histogram size.
    let partLimit: Int

    /// The bins feature-major, when given: boosting's histograms (width 2) are built from them
    /// (`ocm_histogram_accumulate_columns`: the same sums, faster).
    let columns: ColumnBins?

    /// `scratchBudget`: the bytes of scratch histograms (tests pass a small one).
    init(data: BinnedFeatures, width: Int, features: [Int32], slots: Int, scratchBudget: Int = Self.scratchBudget,
         columns: ColumnBins? = nil) throws {
        self.data = data
        self.columns = columns
        self.width = width
        self.size = try checkedProduct(data.totalBins, width, "histogram")
        self.features = features
        self.slots = slots
        partLimit = min(Self.maxParts, 1 + max(0, scratchBudget) / 8 / max(1, size))
    }

    /// One node to build: its rows and where its histogram goes (`size` doubles).
    struct Job {
        var rows: UnsafePointer<UInt32>
        var count: Int
        var output: UnsafeMutablePointer<Double>
        /// Whether `rows` are 0, 1, …, count − 1 (a root on every row): the feature-major kernel
        /// then reads the columns straight through.
        var consecutive = false
    }

    /// The rows (positions in a node's row list) of part `part` of a node of `count` rows cut into `parts`.
    private static func partRows(_ part: Int, of parts: Int, count: Int) -> Range<Int> {
        let blocks = (count + blockRows - 1) / blockRows
        return min(count, part * blocks / parts * blockRows)..<min(count, (part + 1) * blocks / parts * blockRows)
    }

    /// Builds every job's histogram (threads over nodes and parts of their rows), a batch of jobs
    /// whose parts fit the scratch histograms at a time.
    func build(_ jobs: [Job], values: UnsafePointer<Float>) throws {
        guard !jobs.isEmpty else { return }
        let parts = jobs.map { max(1, min(partLimit, ($0.count + Self.blockRows - 1) / Self.blockRows)) }
        let capacity = partLimit - 1
        // Uninitialized: each part's histogram is zeroed where it is built.
        let scratchCount = try checkedProduct(min(capacity, parts.reduce(0) { $0 + $1 - 1 }), size, "histogram parts")
        var scratch = [Double](unsafeUninitializedCapacity: scratchCount) { _, initialized in initialized = scratchCount }
        var first = 0
        while first < jobs.count {
            // (job, part, scratch histogram or −1 for the job's own output) of this batch.
            var items = [(job: Int, part: Int, scratch: Int)]()
            var used = 0
            var end = first
            while end < jobs.count, used + parts[end] - 1 <= capacity {
                for p in 0..<parts[end] {
                    items.append((end, p, p == 0 ? -1 : used))
                    if p > 0 { used += 1 }
                }
                end += 1
            }
            try scratch.withUnsafeMutableBufferPointer { scratch in
                try buildBatch(jobs, parts: parts, items: items, scratch: scratch.baseAddress, values: values)
            }
            first = end
        }
    }

    private func buildBatch(_ jobs: [Job], parts: [Int], items: [(job: Int, part: Int, scratch: Int)],
                            scratch scratchBase: UnsafeMutablePointer<Double>?, values: UnsafePointer<Float>) throws {
        let size = self.size, width = self.width
        let stride = data.featureCount, rowCount = data.rowCount
        let columns = width == 2 ? self.columns : nil
        (columns?.bins ?? data.bins).withUnsafeBufferPointer { bins in
            data.binOffsets.withUnsafeBufferPointer { offsets in
                features.withUnsafeBufferPointer { features in
                    parallelForEach(items.count, slots: slots) { _, i in
                        let item = items[i]
                        let job = jobs[item.job]
                        let target = item.scratch < 0 ? job.output : scratchBase! + item.scratch * size
                        target.update(repeating: 0, count: size)
                        let rows = Self.partRows(item.part, of: parts[item.job], count: job.count)
                        if columns != nil {
                            ocm_histogram_accumulate_columns(bins.baseAddress, rowCount, job.consecutive ? nil : job.rows + rows.lowerBound,
                                                             rows.lowerBound, rows.count, values, features.baseAddress,
                                                             Int32(features.count), offsets.baseAddress, target)
                        } else {
                            ocm_histogram_accumulate(bins.baseAddress, stride, job.rows + rows.lowerBound, rows.count, values,
                                                     Int32(width), features.baseAddress, Int32(features.count),
                                                     offsets.baseAddress, target)
                        }
                    }
                }
            }
        }
        // Parts added in order: each job's histogram split into slices over threads.
        let reduced = items.filter { $0.scratch >= 0 }
        guard !reduced.isEmpty, let scratchBase else { return }
        let sliceSize = 4096
        let slices = (size + sliceSize - 1) / sliceSize
        var jobsWithParts = [Int]()
        for item in reduced where jobsWithParts.last != item.job { jobsWithParts.append(item.job) }
        parallelForEach(jobsWithParts.count * slices, slots: slots) { _, i in
            let j = jobsWithParts[i / slices]
            let start = (i % slices) * sliceSize
            let length = min(sliceSize, size - start)
            for item in reduced where item.job == j {
                ocm_histogram_add(jobs[j].output + start, scratchBase + item.scratch * size + start, length)
            }
        }
    }

    /// `sibling = parent − built`.
    func subtract(parent: UnsafePointer<Double>, built: UnsafePointer<Double>, into sibling: UnsafeMutablePointer<Double>) {
        ocm_histogram_subtract(sibling, parent, built, size)
    }
}
