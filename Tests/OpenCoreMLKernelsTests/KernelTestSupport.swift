import _OpenCoreMLTestSupport
import Testing
import _OpenCoreMLKernels

/// All kernel tests, run one at a time: they switch the process-wide instruction set and
/// thread count. Each kernel family adds a nested suite in its own file.
@Suite(.serialized)
struct KernelTests {}

/// Every instruction-set level this machine can run, lowest first.
let availableISAs: [Int32] = [OCM_ISA_SCALAR, OCM_ISA_AVX2, OCM_ISA_AVX512, OCM_ISA_NEON]
    .filter { ocm_isa_supported($0) }

/// Runs `body` once per available instruction set (named in its argument), then restores the
/// level that was in use.
func forEachISA(_ body: (String) throws -> Void) rethrows {
    try withKernelSettingsHeld { try forEachISAHeld(body) }
}

private func forEachISAHeld(_ body: (String) throws -> Void) rethrows {
    let saved = ocm_isa()
    defer { _ = ocm_set_isa(saved) }
    for isa in availableISAs {
        #expect(ocm_set_isa(isa))
        try body(String(cString: ocm_isa_name()))
    }
}

/// Runs `body` with 1 and then 2 threads, then restores the default.
func forEachThreadCount(_ body: (Int) throws -> Void) rethrows {
    try withKernelSettingsHeld { try forEachThreadCountHeld(body) }
}

private func forEachThreadCountHeld(_ body: (Int) throws -> Void) rethrows {
    defer { ocm_set_num_threads(0) }
    for threads in [1, 2] {
        ocm_set_num_threads(Int32(threads))
        #expect(ocm_num_threads() == Int32(threads))
        try body(threads)
    }
}

/// Runs `body` for every instruction set × {1, 2} threads.
func forEachISAAndThreadCount(_ body: (String) throws -> Void) rethrows {
    try forEachISA { isa in
        try forEachThreadCount { threads in try body("\(isa), \(threads) thread(s)") }
    }
}

/// Expects |actual[i] − expected[i]| <= relative·|expected[i]| + absolute for every i,
/// reporting the worst element once.
func expectClose(
    _ actual: [Float], _ expected: [Double], relative: Double, absolute: Double = 1e-30,
    _ context: String, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(actual.count == expected.count, "\(context): count", sourceLocation: sourceLocation)
    var worst = -1
    var worstExcess = 0.0
    for i in 0..<min(actual.count, expected.count) {
        let error = abs(Double(actual[i]) - expected[i])
        let allowed = relative * abs(expected[i]) + absolute
        if !(error <= allowed) {
            let excess = error.isNaN ? .infinity : error - allowed
            if worst < 0 || excess > worstExcess {
                worst = i
                worstExcess = excess
            }
        }
    }
    #expect(
        worst < 0,
        "\(context): element \(worst) is \(worst >= 0 ? actual[worst] : 0), expected \(worst >= 0 ? expected[worst] : 0)",
        sourceLocation: sourceLocation)
}

/// Expects |actual[i] − expected[i]| <= relative·scale[i] + absolute for every i (scale is the
/// size of the terms that made expected[i], e.g. Σ|a·b| for a dot product).
func expectClose(
    _ actual: [Float], _ expected: [Double], scale: [Double], relative: Double,
    absolute: Double = 1e-30, _ context: String, sourceLocation: SourceLocation = #_sourceLocation
) {
    precondition(scale.count == expected.count)
    #expect(actual.count == expected.count, "\(context): count", sourceLocation: sourceLocation)
    let bad = (0..<min(actual.count, expected.count)).first { i in
        !(abs(Double(actual[i]) - expected[i]) <= relative * scale[i] + absolute)
    }
    #expect(
        bad == nil,
        "\(context): element \(bad ?? -1) is \(bad.map { actual[$0] } ?? 0), expected \(bad.map { expected[$0] } ?? 0)",
        sourceLocation: sourceLocation)
}

/// Expects two arrays to be identical (bitwise for floats, so NaN == NaN).
func expectIdentical(
    _ actual: [Float], _ expected: [Float], _ context: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(actual.count == expected.count, "\(context): count", sourceLocation: sourceLocation)
    let firstDifference = (0..<min(actual.count, expected.count)).first {
        actual[$0].bitPattern != expected[$0].bitPattern
    }
    #expect(
        firstDifference == nil,
        "\(context): element \(firstDifference ?? -1) is \(firstDifference.map { actual[$0] } ?? 0), expected \(firstDifference.map { expected[$0] } ?? 0)",
        sourceLocation: sourceLocation)
}

/// ⟨a, b⟩ in Double.
func dot(_ a: [Float], _ b: [Float]) -> Double {
    precondition(a.count == b.count)
    var sum = 0.0
    for i in 0..<a.count { sum += Double(a[i]) * Double(b[i]) }
    return sum
}
