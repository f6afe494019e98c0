import Foundation

/// The resident memory and processor time of this process, for the benchmarks.
enum ProcessUsage {
    /// User plus system processor time of every thread so far, in seconds.
    static var cpuSeconds: Double {
        var usage = rusage()
        #if os(Linux)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// The largest resident set so far (`getrusage`), in bytes.
    static var peakResidentBytes: Int {
        var usage = rusage()
        #if os(Linux)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_maxrss) * 1024
        #else
        getrusage(RUSAGE_SELF, &usage)
        return Int(usage.ru_maxrss)
        #endif
    }

    /// The resident set now, in bytes (from `/proc/self/statm`; the peak where that is missing).
    static var currentResidentBytes: Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return peakResidentBytes }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return peakResidentBytes }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}

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
