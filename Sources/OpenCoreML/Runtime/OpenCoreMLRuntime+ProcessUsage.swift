import Foundation

extension OpenCoreMLRuntime {
    /// User plus system processor time of every thread of this process so far, in seconds.
    package static var processorSeconds: Double {
        var usage = rusage()
        #if os(Linux)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// The largest resident set of this process so far, in bytes.
    package static var peakResidentBytes: Int {
        var usage = rusage()
        #if os(Linux)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_maxrss) * 1024
        #else
        getrusage(RUSAGE_SELF, &usage)
        return Int(usage.ru_maxrss)
        #endif
    }

    /// The resident set of this process now, in bytes (from `/proc/self/statm`; the peak where
    /// that is missing).
    package static var currentResidentBytes: Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return peakResidentBytes }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return peakResidentBytes }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
