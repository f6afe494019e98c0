/// A small deterministic generator (SplitMix64), so random test inputs are the same on every run
/// and failures reproduce.
public struct TestRandom: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [lo, hi).
    public mutating func float(_ lo: Float = -1, _ hi: Float = 1) -> Float {
        lo + (hi - lo) * Float(next() >> 40) / Float(1 << 24)
    }

    public mutating func floats(_ count: Int, _ lo: Float = -1, _ hi: Float = 1) -> [Float] {
        (0..<count).map { _ in float(lo, hi) }
    }

    public mutating func int(_ range: Range<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }
}
