import Foundation

// Summary statistics of numeric columns. Every statistic skips missing elements and is nil for a
// column with no values (or an invalid column).

/// Running moments of a set of numbers (Welford's method, stable for large columns).
struct Moments {
    var count = 0
    var mean = 0.0
    var m2 = 0.0

    mutating func add(_ x: Double) {
        count += 1
        let delta = x - mean
        mean += delta / Double(count)
        m2 += delta * (x - mean)
    }

    /// The population variance (divided by n, not n − 1).
    var variance: Double? { count > 0 ? m2 / Double(count) : nil }
}

extension ColumnStorage {
    /// The moments of the numeric values that are not missing; nil for non-numeric columns.
    var moments: Moments? {
        var m = Moments()
        switch values {
        case .int(let a): for i in a.indices where !isMissing(i) { m.add(Double(a[i])) }
        case .double(let a): for i in a.indices where !isMissing(i) { m.add(a[i]) }
        default: return nil
        }
        return m
    }
}

extension MLDataColumn where Element == Int {
    /// The sum of the elements; nil when there are none or the sum overflows.
    public func sum() -> Int? {
        guard isValid, case .int(let a) = storage.values else { return nil }
        var total = 0
        var any = false
        for i in a.indices where !storage.isMissing(i) {
            let r = total.addingReportingOverflow(a[i])
            if r.overflow { return nil }
            total = r.partialValue
            any = true
        }
        return any ? total : nil
    }

    /// The smallest element, or nil.
    public func min() -> Int? {
        guard isValid, case .int(let a) = storage.values else { return nil }
        return a.indices.lazy.filter { !storage.isMissing($0) }.map { a[$0] }.min()
    }

    /// The largest element, or nil.
    public func max() -> Int? {
        guard isValid, case .int(let a) = storage.values else { return nil }
        return a.indices.lazy.filter { !storage.isMissing($0) }.map { a[$0] }.max()
    }

    /// The arithmetic mean, or nil.
    public func mean() -> Double? { isValid ? storage.moments.flatMap { $0.count > 0 ? $0.mean : nil } : nil }

    /// The population standard deviation (divided by n), or nil.
    public func std() -> Double? { isValid ? storage.moments?.variance.map { $0.squareRoot() } : nil }

    /// The population standard deviation (the same as `std()`), or nil.
    public func stdev() -> Double? { std() }
}

extension MLDataColumn where Element == Double {
    /// The sum of the elements, or nil.
    public func sum() -> Double? {
        guard isValid, case .double(let a) = storage.values else { return nil }
        var total = 0.0
        var any = false
        for i in a.indices where !storage.isMissing(i) {
            total += a[i]
            any = true
        }
        return any ? total : nil
    }

    /// The smallest element, or nil (NaN elements are ignored unless all are NaN).
    public func min() -> Double? {
        guard isValid, case .double(let a) = storage.values else { return nil }
        let present = a.indices.lazy.filter { !storage.isMissing($0) }.map { a[$0] }
        return present.filter { !$0.isNaN }.min() ?? present.first
    }

    /// The largest element, or nil (NaN elements are ignored unless all are NaN).
    public func max() -> Double? {
        guard isValid, case .double(let a) = storage.values else { return nil }
        let present = a.indices.lazy.filter { !storage.isMissing($0) }.map { a[$0] }
        return present.filter { !$0.isNaN }.max() ?? present.first
    }

    /// The arithmetic mean, or nil.
    public func mean() -> Double? { isValid ? storage.moments.flatMap { $0.count > 0 ? $0.mean : nil } : nil }

    /// The population standard deviation (divided by n), or nil.
    public func std() -> Double? { isValid ? storage.moments?.variance.map { $0.squareRoot() } : nil }

    /// The population standard deviation (the same as `std()`), or nil.
    public func stdev() -> Double? { std() }
}
