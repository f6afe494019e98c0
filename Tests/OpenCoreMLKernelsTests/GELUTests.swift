import _OpenCoreMLTestSupport
import Foundation
import Testing
import _OpenCoreMLKernels

/// GELU by its definitions, in Double.
private func referenceGELU(_ x: Float, mode: Int32) -> Double {
    let v = Double(x)
    switch mode {
    case OCM_GELU_EXACT: return 0.5 * v * (1 + erf(v / 2.0.squareRoot()))
    case OCM_GELU_TANH: return 0.5 * v * (1 + tanh((2 / Double.pi).squareRoot() * (v + 0.044715 * v * v * v)))
    default: return v / (1 + exp(-1.702 * v))
    }
}

extension KernelTests {
    @Suite("GELU")
    struct GELU {
        /// Each mode against its definition over a wide range (lengths that end in a partial
        /// vector, and long enough to be threaded), with NaN kept and ±large inputs saturating.
        @Test(arguments: [OCM_GELU_EXACT, OCM_GELU_TANH, OCM_GELU_SIGMOID], [1, 37, 40_003])
        func matchesTheDefinition(mode: Int32, count: Int) {
            var random = TestRandom(seed: UInt64(count) + UInt64(mode))
            var x = random.floats(count, -9, 9)
            let specials: [Float] = [0, -0.0, 1e-6, -1e-6, 30, -30, 0.5, -0.5]
            for (i, value) in specials.enumerated() where i + 1 < count { x[i + 1] = value }
            if count > 1 { x[count - 1] = .nan }
            let expected = x.map { referenceGELU($0, mode: mode) }
            forEachISAAndThreadCount { context in
                var y = [Float](repeating: 0, count: count)
                ocm_gelu(x, &y, count, mode)
                // Polynomial erf and exp: within a few units in the last place, and 3·10⁻⁷ absolute.
                expectClose(Array(y.dropLast(count > 1 ? 1 : 0)), Array(expected.dropLast(count > 1 ? 1 : 0)),
                            relative: 2e-6, absolute: 3e-7, "mode \(mode), \(count) values [\(context)]")
                if count > 1 { #expect(y[count - 1].isNaN, "NaN is kept [\(context)]") }
            }
        }
    }
}
