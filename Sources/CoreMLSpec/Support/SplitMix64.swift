/// SplitMix64: a small, fast random-number generator with a seed, so shuffles, generated data and
/// built models are the same on every run and platform (the system generator is not seedable).
///
/// ```swift
/// var random = SplitMix64(seed: 42)
/// let weights = (0..<10).map { _ in Float.random(in: -1...1, using: &random) }
/// ```
package struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose sequence depends only on `seed`.
    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
