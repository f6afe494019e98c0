import Foundation

/// Swift Testing runs the suites of different test modules at the same time, in one process. Tests
/// that switch the kernels' process-wide settings (instruction set, thread count) run inside this,
/// and so do tests whose expectations need those settings to hold still (the very same floats from
/// two runs), so that neither sees the other's settings change mid-run. Nested calls are fine.
public func withKernelSettingsHeld<T>(_ body: () throws -> T) rethrows -> T {
    kernelSettings.lock()
    defer { kernelSettings.unlock() }
    return try body()
}

private let kernelSettings = NSRecursiveLock()
