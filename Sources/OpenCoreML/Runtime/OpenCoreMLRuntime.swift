import CoreMLSpec
import Foundation
import _OpenCoreMLEngine
import _OpenCoreMLKernels

/// Process-wide settings of OpenCoreML's compute kernels: how many threads they use and which
/// instruction set they run (an OpenCoreML addition; Core ML chooses these itself through
/// `MLComputeUnits`).
///
/// ```swift
/// OpenCoreMLRuntime.threadCount = 1               // e.g. for a server running many models at once
/// print(OpenCoreMLRuntime.instructionSet)         // avx512, avx2, neon or scalar
/// try OpenCoreMLRuntime.setInstructionSet(.scalar) // the portable C kernels, e.g. to compare
/// ```
///
/// Defaults come from the environment: `OPENCOREML_NUM_THREADS` (else every online processor) and
/// `OPENCOREML_ISA` (else the best set the processor supports). A change applies from the next
/// kernel call; one running on another thread finishes with the setting it started with.
public enum OpenCoreMLRuntime {
    /// A family of vector instructions the kernels are written for.
    public enum InstructionSet: String, CaseIterable, Sendable, CustomStringConvertible {
        /// Portable C, on every processor.
        case scalar
        /// x86-64 AVX2 with FMA.
        case avx2
        /// x86-64 AVX-512F.
        case avx512
        /// AArch64 Advanced SIMD.
        case neon

        var code: Int32 {
            switch self {
            case .scalar: return OCM_ISA_SCALAR
            case .avx2: return OCM_ISA_AVX2
            case .avx512: return OCM_ISA_AVX512
            case .neon: return OCM_ISA_NEON
            }
        }

        /// Whether this processor (and this build) can run the set.
        public var isSupported: Bool { ocm_isa_supported(code) }

        /// The set's name: `scalar`, `avx2`, `avx512` or `neon`.
        public var description: String { rawValue }
    }

    /// OpenCoreML's version, as the CLI's `--version` and the C interface's `ocm_version()` give it.
    public static let version = "0.1.0"

    /// The number of threads a kernel call uses, the calling thread included (at least 1).
    /// Setting 0 or less restores the default.
    public static var threadCount: Int {
        get { Int(ocm_num_threads()) }
        set { ocm_set_num_threads(Int32(clamping: newValue)) }
    }

    /// The memory limit of models whose configuration sets none (``MLModelConfiguration/memoryLimit``):
    /// half of the physical memory unless changed.
    public static var defaultMemoryLimit: Int {
        get { memoryLimitBox.withLock { $0 } }
        set { memoryLimitBox.withLock { $0 = max(0, newValue) } }
    }

    private static let memoryLimitBox = LockedValue(Int(clamping: ProcessInfo.processInfo.physicalMemory / 2))

    /// The loop work limit of models whose configuration sets none
    /// (``MLModelConfiguration/loopWorkLimit``): 2⁴⁰ multiply-adds' worth unless changed.
    public static var defaultLoopWorkLimit: Int {
        get { loopWorkLimitBox.withLock { $0 } }
        set { loopWorkLimitBox.withLock { $0 = max(0, newValue) } }
    }

    private static let loopWorkLimitBox = LockedValue(ProgramPlan.defaultLoopWorkLimit)

    /// The instruction set the kernels run.
    public static var instructionSet: InstructionSet {
        let code = ocm_isa()
        return InstructionSet.allCases.first { $0.code == code } ?? .scalar
    }

    /// The instruction sets this processor can run, best last.
    public static var supportedInstructionSets: [InstructionSet] {
        InstructionSet.allCases.filter(\.isSupported)
    }

    /// Switches every kernel to `set`; throws, changing nothing, when the processor cannot run it.
    ///
    /// - Parameter set: One of ``supportedInstructionSets``.
    /// - Throws: An ``MLModelError`` with ``MLModelError/Code/parameters`` when this processor cannot run
    ///   `set`.
    public static func setInstructionSet(_ set: InstructionSet) throws {
        guard ocm_set_isa(set.code) else {
            let supported = supportedInstructionSets.map(\.rawValue).joined(separator: ", ")
            throw MLModelError(.parameters, "instruction set \(set) is not supported by this processor (it runs \(supported))")
        }
    }

    /// The median seconds of one single-precision matrix product C[m×n] = op(A)·op(B) with inner
    /// dimension `k`, on random values, timed for about `seconds` (at least 5 runs after 3 to warm
    /// up): what `opencoreml bench gemm` reports.
    package static func timeMatrixProduct(
        m: Int, n: Int, k: Int, transposeA: Bool = false, transposeB: Bool = false, seconds: Double = 0.5
    ) -> Double {
        precondition(m > 0 && n > 0 && k > 0 && m <= Int(Int32.max) / k && n <= Int(Int32.max) / k, "matrix sizes must be positive and fit 32 bits")
        var random = SplitMix64(seed: 7)
        let a = (0..<(m * k)).map { _ in Float.random(in: -1...1, using: &random) }
        let b = (0..<(k * n)).map { _ in Float.random(in: -1...1, using: &random) }
        var c = [Float](repeating: 0, count: m * n)
        let lda = transposeA ? m : k
        let ldb = transposeB ? k : n
        func once() -> Double {
            let start = DispatchTime.now().uptimeNanoseconds
            ocm_sgemm(transposeA, transposeB, Int32(m), Int32(n), Int32(k), 1, a, Int32(lda), b, Int32(ldb), 0, &c, Int32(n))
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        }
        for _ in 0..<3 { _ = once() }
        var samples: [Double] = []
        var spent = 0.0
        while spent < seconds || samples.count < 5 {
            let sample = once()
            samples.append(sample)
            spent += sample
        }
        samples.sort()
        return samples[samples.count / 2]
    }

    /// The multiply-add rate in GFLOP/s (a multiply-add counts two) that ``threadCount`` threads
    /// reach running nothing but independent fused multiply-adds at ``instructionSet``, timed for
    /// about `seconds`: the machine's limit that `opencoreml bench fma` reports and that training
    /// speed is measured against.
    package static func fusedMultiplyAddPeak(seconds: Double = 1) -> Double {
        precondition(seconds > 0, "seconds must be positive")
        return ocm_fma_peak_gflops(seconds)
    }
}

/// A value behind a lock.
final class LockedValue<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<R>(_ body: (inout Value) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
