import CoreMLSpec

/// The random draws of tree training (row and feature samples), from `SplitMix64` fixed by a seed,
/// so a training run repeats exactly (and does not depend on the number of threads: every draw is
/// made on one thread).
struct TreeTrainingRandom {
    private var generator: SplitMix64

    /// `stream` gives independent sequences from one seed (a forest's trees).
    init(seed: UInt64, stream: UInt64 = 0) {
        generator = SplitMix64(seed: seed ^ (stream &* 0x9E37_79B9_7F4A_7C15))
    }

    mutating func next() -> UInt64 { generator.next() }

    /// Uniform in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// Uniform in 0..<bound (bound > 0), without modulo bias.
    mutating func below(_ bound: Int) -> Int {
        let b = UInt64(bound)
        let limit = UInt64.max - UInt64.max % b
        var x = next()
        while x >= limit { x = next() }
        return Int(x % b)
    }

    /// `k` of `0..<n` without replacement, ascending (selection sampling: each index is taken
    /// with probability (still needed) / (still left)).
    mutating func sample(_ k: Int, of n: Int) -> [UInt32] {
        var picked = [UInt32]()
        picked.reserveCapacity(k)
        var needed = k
        for i in 0..<n where needed > 0 {
            if Double(n - i) * unit() < Double(needed) {
                picked.append(UInt32(truncatingIfNeeded: i))
                needed -= 1
            }
        }
        return picked
    }

    /// `k` draws from `0..<n` with replacement, ascending (a row drawn twice appears twice).
    mutating func bootstrap(_ k: Int, of n: Int) -> [UInt32] {
        var counts = [UInt32](repeating: 0, count: n)
        for _ in 0..<k { counts[below(n)] &+= 1 }
        var rows = [UInt32]()
        rows.reserveCapacity(k)
        for i in 0..<n where counts[i] > 0 {
            for _ in 0..<counts[i] { rows.append(UInt32(truncatingIfNeeded: i)) }
        }
        return rows
    }

    /// `k` of `0..<n` without replacement, ascending, for few items (features).
    mutating func choose(_ k: Int, of n: Int) -> [Int] {
        var all = Array(0..<n)
        for i in 0..<min(k, n) {
            all.swapAt(i, i + below(n - i))
        }
        return all[0..<min(k, n)].sorted()
    }
}
