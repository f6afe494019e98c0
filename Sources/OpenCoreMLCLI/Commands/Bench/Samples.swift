import Foundation

/// Formats bytes as megabytes (10⁶), e.g. `487.2 MB`.
func megabytes(_ bytes: Int) -> String {
    String(format: "%.1f MB", Double(bytes) / 1e6)
}

/// Order statistics of timing samples.
struct Samples {
    private(set) var values: [Double]

    init(_ values: [Double]) { self.values = values.sorted() }

    /// The value below which `fraction` of the samples lie (nearest rank; the median for 0.5).
    func percentile(_ fraction: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let rank = Int((fraction * Double(values.count)).rounded(.up)) - 1
        return values[min(max(rank, 0), values.count - 1)]
    }

    var median: Double {
        guard !values.isEmpty else { return .nan }
        let middle = values.count / 2
        return values.count % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2
    }
}

/// Seconds since an arbitrary start, monotonic.
func monotonicSeconds() -> Double {
    Double(DispatchTime.now().uptimeNanoseconds) / 1e9
}
