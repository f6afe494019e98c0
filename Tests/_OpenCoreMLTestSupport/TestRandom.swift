import CoreMLSpec

/// A deterministic generator (SplitMix64), so random test inputs are the same on
/// every run and failures reproduce.
public struct TestRandom: RandomNumberGenerator {
    private var generator: SplitMix64

    public init(seed: UInt64) { generator = SplitMix64(seed: seed) }

    public mutating func next() -> UInt64 { generator.next() }

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
