import CoreMLSpec

/// Initial weights for layers declared without them: Glorot-uniform values from a generator seeded
/// by the layer's name, so the same declaration always gives the same model.
enum WeightInitializer {
    /// `count` values uniform in ±√(6 / (fanIn + fanOut)).
    static func glorotUniform(count: Int, fanIn: Int, fanOut: Int, layer name: String) -> [Float] {
        var random = SplitMix64(seed: seed(for: name))
        let limit = Float((6.0 / Double(max(1, fanIn + fanOut))).squareRoot())
        return (0..<count).map { _ in Float.random(in: -limit...limit, using: &random) }
    }

    /// FNV-1a of the name: stable across runs and platforms, unlike `Hasher`.
    static func seed(for name: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
