import _OpenCoreMLKernels

/// How a feature is binned: numeric values by quantile cuts, or category codes `0..<count`.
package enum TreeFeatureKind: Sendable, Equatable {
    case numeric
    case categorical(count: Int)
}

/// Rows binned once, one byte per (row, feature), row-major.
///
/// A numeric feature's values are rounded to float32 first, as the written model's branches compare
/// them (``TreeEnsembleLayout/comparedValue(_:)``, as XGBoost and scikit-learn do), so the trainer's
/// own evaluation and the written model agree on every row. Its bins are cut at up to `maxBins − 2`
/// values taken from the rounded data (quantiles of at most 200,000 sampled rows; every distinct
/// value when there are few): bin `b` holds the values `x` with `cuts[b − 1] <= x < cuts[b]`, so a
/// split between bins `b − 1` and `b` is exactly `x < cuts[b − 1]` in raw units. The bin after the
/// value bins holds missing values (NaN).
/// A categorical feature's bins are its codes (up to `maxBins − 2` of them), then one bin for every
/// other value (a code out of range, or past the bins), which no equality split picks and which
/// therefore always takes the "not equal" branch (as a Core ML tree would), then the missing bin.
package struct BinnedFeatures: Sendable {
    /// The largest number of rows whose values choose a numeric feature's cuts.
    package static let cutSampleRows = 200_000

    package let kinds: [TreeFeatureKind]
    package let maxBins: Int
    /// Numeric features: the cut values (ascending, finite); categorical: empty.
    package let cuts: [[Double]]
    /// Per feature: the number of value bins (numeric: cuts + 1; categorical: codes binned + the
    /// "other" bin). The missing bin's index is this number.
    package let valueBinCounts: [Int]
    /// Per feature: the first bin of its part of a histogram (a prefix sum of `valueBinCounts + 1`).
    package let binOffsets: [UInt32]
    /// Every feature's bins, missing included: the size of a histogram, in bins.
    package let totalBins: Int
    /// Row-major `rowCount × featureCount` bins.
    package let bins: [UInt8]
    package let rowCount: Int

    package var featureCount: Int { kinds.count }

    /// The missing bin of feature `f`.
    package func missingBin(_ f: Int) -> Int { valueBinCounts[f] }

    /// Categorical feature `f`: the number of codes with their own bin (`0..<codeBins`).
    package func codeBins(_ f: Int) -> Int {
        if case .categorical = kinds[f] { return valueBinCounts[f] - 1 }
        return 0
    }

    /// Bins `columns` (column-major, one array per feature, NaN = missing; a categorical value is
    /// its code as a Double). `threads` caps the threads used (nil: the kernels' count).
    package init(columns: [[Double]], kinds: [TreeFeatureKind], maxBins: Int = 256, threads: Int? = nil) throws {
        guard columns.count == kinds.count else {
            throw TreeTrainingError("features", "\(columns.count) columns for \(kinds.count) features")
        }
        try self.init(rowCount: columns.first?.count ?? 0, kinds: kinds, maxBins: maxBins, threads: threads,
                      columnsAtOnce: kinds.count) { columns[$0] }
    }

    /// Bins columns asked for one at a time (`column(f)`: feature f's values, as `init(columns:)`
    /// takes them), holding at most `columnsAtOnce` of them: a lower peak of memory than having
    /// every column as doubles at once.
    package init(rowCount: Int, kinds: [TreeFeatureKind], maxBins: Int = 256, threads: Int? = nil,
                 columnsAtOnce: Int = 8, column: (Int) throws -> [Double]) throws {
        guard (2...256).contains(maxBins) else {
            throw TreeTrainingError("maxBins", "must be in 2...256, not \(maxBins)")
        }
        guard !kinds.isEmpty else { throw TreeTrainingError("features", "there are no feature columns") }
        guard rowCount > 0 else { throw TreeTrainingError("rows", "there are no rows") }
        guard rowCount <= Int(UInt32.max) else {
            throw TreeTrainingError("rows", "\(rowCount) rows is more than \(UInt32.max)")
        }
        for (f, kind) in kinds.enumerated() {
            if case .categorical(let count) = kind, count < 0 {
                throw TreeTrainingError("feature \(f)", "a categorical feature's category count must be >= 0, not \(count)")
            }
        }
        let featureCount = kinds.count
        let slots = threads.map { max(1, $0) } ?? Int(Int32.max)
        let sample = Self.cutSample(rowCount: rowCount)
        var cuts = [[Double]](repeating: [], count: featureCount)
        var valueBins = [Int](repeating: 0, count: featureCount)
        var bins = [UInt8](repeating: 0, count: try checkedProduct(rowCount, featureCount, "binned features"))
        let group = max(1, columnsAtOnce)
        for first in stride(from: 0, to: featureCount, by: group) {
            let features = first..<min(featureCount, first + group)
            var columns = [[Double]]()
            for f in features {
                var values = try column(f)
                guard values.count == rowCount else {
                    throw TreeTrainingError("feature \(f)", "has \(values.count) rows where there are \(rowCount)")
                }
                if kinds[f] == .numeric { try Self.roundToFloat32(&values, feature: f) }
                columns.append(values)
            }
            cuts.withUnsafeMutableBufferPointer { cutsOut in
                let cutsOut = cutsOut
                parallelForEach(features.count, slots: slots) { _, i in
                    let f = features.lowerBound + i
                    if kinds[f] == .numeric {
                        cutsOut[f] = Self.quantileCuts(columns[i], sample: sample, maxValueBins: maxBins - 1)
                    }
                }
            }
            for f in features {
                switch kinds[f] {
                case .numeric: valueBins[f] = cuts[f].count + 1
                case .categorical(let count): valueBins[f] = min(count, maxBins - 2) + 1
                }
            }
            try bins.withUnsafeMutableBufferPointer { out in
                try Self.bin(columns, features: features, kinds: kinds, cuts: cuts, valueBinCounts: valueBins,
                             into: out, stride: featureCount, slots: slots)
            }
        }
        self.kinds = kinds
        self.maxBins = maxBins
        self.cuts = cuts
        valueBinCounts = valueBins
        var offsets = [UInt32]()
        var total = 0
        for count in valueBins {
            offsets.append(UInt32(total))
            total += count + 1
        }
        binOffsets = offsets
        totalBins = total
        self.rowCount = rowCount
        self.bins = bins
    }

    /// The same cuts applied to other rows (validation, test): NaN → the missing bin, a category
    /// code out of range → the "other" bin.
    package func binning(columns: [[Double]]) throws -> BinnedFeatures {
        guard columns.count == featureCount else {
            throw TreeTrainingError("features", "\(columns.count) columns for \(featureCount) features")
        }
        let rows = columns[0].count
        guard rows > 0 else { throw TreeTrainingError("rows", "there are no rows") }
        guard rows <= Int(UInt32.max) else { throw TreeTrainingError("rows", "\(rows) rows is more than \(UInt32.max)") }
        for (f, column) in columns.enumerated() where column.count != rows {
            throw TreeTrainingError("feature \(f)", "has \(column.count) rows where feature 0 has \(rows)")
        }
        var columns = columns
        for f in columns.indices where kinds[f] == .numeric { try Self.roundToFloat32(&columns[f], feature: f) }
        var binned = [UInt8](repeating: 0, count: try checkedProduct(rows, featureCount, "binned features"))
        try binned.withUnsafeMutableBufferPointer { out in
            try Self.bin(columns, features: 0..<featureCount, kinds: kinds, cuts: cuts, valueBinCounts: valueBinCounts,
                         into: out, stride: featureCount, slots: Int(Int32.max))
        }
        return BinnedFeatures(kinds: kinds, maxBins: maxBins, cuts: cuts, valueBinCounts: valueBinCounts,
                              binOffsets: binOffsets, totalBins: totalBins, bins: binned, rowCount: rows)
    }

    private init(kinds: [TreeFeatureKind], maxBins: Int, cuts: [[Double]], valueBinCounts: [Int],
                 binOffsets: [UInt32], totalBins: Int, bins: [UInt8], rowCount: Int) {
        self.kinds = kinds
        self.maxBins = maxBins
        self.cuts = cuts
        self.valueBinCounts = valueBinCounts
        self.binOffsets = binOffsets
        self.totalBins = totalBins
        self.bins = bins
        self.rowCount = rowCount
    }

    /// Rounds a numeric column's values to float32 in place (``TreeEnsembleLayout/comparedValue(_:)``).
    /// An infinite value is an error naming the row (no bin a `x < t` test keeps apart from the
    /// finite ones holds it), and so is a finite one beyond float32's range (about ±3.4e38).
    static func roundToFloat32(_ column: inout [Double], feature f: Int) throws {
        for r in column.indices {
            let x = TreeEnsembleLayout.comparedValue(column[r])
            if x.isInfinite {
                let problem = column[r].isInfinite ? "is infinite" : "is beyond float32's range (tree inputs are compared as float32)"
                throw TreeTrainingError("feature \(f), row \(r)", "the value \(column[r]) \(problem)", tableCell: (f, r))
            }
            column[r] = x
        }
    }

    /// The rows whose values choose the cuts: all, or an even random sample of `cutSampleRows`.
    private static func cutSample(rowCount: Int) -> [UInt32]? {
        guard rowCount > cutSampleRows else { return nil }
        var random = TreeTrainingRandom(seed: 0x5EED_B1A5)
        return random.sample(cutSampleRows, of: rowCount)
    }

    /// Up to `maxValueBins − 1` cuts: every distinct value but the smallest when they are few,
    /// else the values at evenly spaced ranks (each a value of the data, so no bin is empty in the sample).
    static func quantileCuts(_ column: [Double], sample: [UInt32]?, maxValueBins: Int) -> [Double] {
        var values: [Double]
        if let sample {
            values = sample.map { column[Int($0)] }.filter { $0.isFinite }
        } else {
            values = column.filter { $0.isFinite }
        }
        guard !values.isEmpty else { return [] }
        values = sortedStably(values)
        var distinct = [Double]()
        distinct.reserveCapacity(min(values.count, maxValueBins + 1))
        for v in values where distinct.last != v {
            distinct.append(v)
            if distinct.count > maxValueBins { break }
        }
        if distinct.count <= maxValueBins { return Array(distinct.dropFirst()) }
        var cuts = [Double]()
        let n = values.count
        for k in 1..<maxValueBins {
            let v = values[k * n / maxValueBins]
            if v > values[0], cuts.last.map({ v > $0 }) ?? true { cuts.append(v) }
        }
        return cuts
    }

    /// `values` (finite) ascending, as a stable sort by `<` orders them (−0 and +0 in their input
    /// order): a radix sort, a few times faster than the standard library's merge sort on these.
    static func sortedStably(_ values: [Double]) -> [Double] {
        var scratch = [UInt64](repeating: 0, count: values.count)
        return [Double](unsafeUninitializedCapacity: values.count) { out, initialized in
            values.withUnsafeBufferPointer { input in
                scratch.withUnsafeMutableBufferPointer { scratch in
                    ocm_sort_doubles(input.baseAddress, input.count, out.baseAddress, scratch.baseAddress)
                }
            }
            initialized = values.count
        }
    }

    /// Bins `columns` (features `features`, in order; numeric ones rounded by
    /// ``roundToFloat32(_:feature:)``, so finite) into `out[row·stride + f]`.
    private static func bin(_ columns: [[Double]], features: Range<Int>, kinds: [TreeFeatureKind], cuts: [[Double]],
                            valueBinCounts: [Int], into out: UnsafeMutableBufferPointer<UInt8>, stride: Int,
                            slots: Int) throws {
        let rows = columns.first?.count ?? 0
        let blockRows = 4096
        let blocks = (rows + blockRows - 1) / blockRows
        // Each numeric feature's cuts padded with +infinity to the 255 entries the kernel's search steps over.
        let padded = features.map { cuts[$0] + [Double](repeating: .infinity, count: 255 - cuts[$0].count) }
        parallelForEach(blocks, slots: slots) { _, block in
            let start = block * blockRows, end = min(rows, start + blockRows)
            for (i, f) in features.enumerated() {
                let missing = UInt8(valueBinCounts[f])
                columns[i].withUnsafeBufferPointer { column in
                    switch kinds[f] {
                    case .numeric:
                        padded[i].withUnsafeBufferPointer { c in
                            ocm_bin_numeric(column.baseAddress! + start, end - start, c.baseAddress, missing,
                                            out.baseAddress! + start * stride + f, stride)
                        }
                    case .categorical:
                        let other = valueBinCounts[f] - 1
                        for r in start..<end {
                            let x = column[r]
                            if x.isNaN {
                                out[r * stride + f] = missing
                            } else if x >= 0, x < Double(other), x == x.rounded(.towardZero) {
                                out[r * stride + f] = UInt8(Int(x))
                            } else {
                                out[r * stride + f] = UInt8(other)
                            }
                        }
                    }
                }
            }
        }
    }
}
