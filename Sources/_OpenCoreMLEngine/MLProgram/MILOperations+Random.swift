import CoreMLSpec

/// The random operations: `random_uniform`, `random_normal`, `random_bernoulli` (shape from a
/// constant or from a shape tensor computed while the program runs) and `random_categorical`.
///
/// Seeds, as coremltools' operation definitions describe them: `seed` −1 (the default) draws
/// different values on every run; any other seed gives the same values on every run.
///
/// Deliberately unlike Core ML, whose generator Apple does not publish: the values come from
/// ``SplitMix64``, so the same seed gives other values than Core ML's (the same distribution).
/// A fixed seed gives the same values on every run and every platform: the generator starts from
/// the seed mixed with the number of loop iterations the run has taken so far (so an operation
/// inside a `while_loop` draws new values on each iteration, the same ones on every run), and the
/// transforms from uniform bits to the distributions use only +, −, ×, ÷ and comparisons, which
/// IEEE 754 rounds the same everywhere (the logarithm and exponential are written out here rather
/// than taken from the platform's math library, whose last bits differ between platforms).
extension MILOperations {
    static let random: [String: Make] = [
        "random_uniform": randomUniform, "random_normal": randomNormal,
        "random_bernoulli": randomBernoulli, "random_categorical": randomCategorical,
    ]

    /// `random_uniform(shape, low = 0, high = 1, seed)`: values in [low, high); `low` where high = low.
    static let randomUniform: Make = { arguments, outputs, context in
        let low = try constantFloat(arguments, "low", context) ?? 0, high = try constantFloat(arguments, "high", context) ?? 1
        return try randomFill(arguments, outputs, context) { generator in
            let value = low + (high - low) * RandomValues.unit(&generator)
            return high > low ? min(value, high.nextDown) : low
        }
    }

    /// `random_normal(shape, mean = 0, stddev = 1, seed)`.
    static let randomNormal: Make = { arguments, outputs, context in
        let mean = try constantFloat(arguments, "mean", context) ?? 0, deviation = try constantFloat(arguments, "stddev", context) ?? 1
        return try randomFill(arguments, outputs, context) { generator in
            mean + deviation * Float(RandomValues.normal(&generator))
        }
    }

    /// `random_bernoulli(shape, prob = 0.5, seed)`: 1 with probability `prob`, else 0.
    static let randomBernoulli: Make = { arguments, outputs, context in
        let probability = try constantFloat(arguments, "prob", context) ?? 0.5
        return try randomFill(arguments, outputs, context) { generator in
            RandomValues.unit(&generator) < probability ? 1 : 0
        }
    }

    /// A step filling a tensor of the shape `shape` gives (a constant, or computed) with `draw`'s values.
    static func randomFill(_ arguments: Arguments, _ outputs: [Int], _ context: OperationContext,
                           _ draw: @escaping @Sendable (inout SplitMix64) -> Float) throws -> ProgramPlan.Step {
        guard let shapeParameter = try IntegerParameter(arguments, "shape", context) else { throw context.fail("input 'shape' is missing") }
        let seed = try randomSeed(arguments, context)
        return { frame in
            let shape = try shapeParameter.values("shape", frame, context)
            var values = try frame.unfilledBuffer(shape, context)
            var generator = RandomValues.generator(seed: seed, iteration: frame.iterations)
            for index in values.indices { values[index] = draw(&generator) }
            frame[outputs[0]] = MILTensor(shape: shape, values: values)
        }
    }

    /// `random_categorical(x, mode = "logits", size = 1, seed)`: for each distribution (x's last
    /// axis: logits, or probabilities with mode "probs"), `size` class indices drawn with
    /// replacement; the output's shape is x's with the last axis `size`.
    static let randomCategorical: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context)
        let mode = try constantString(arguments, "mode", context) ?? "logits"
        guard mode == "logits" || mode == "probs" else { throw context.fail("mode '\(mode)' is not 'logits' or 'probs'") }
        let size = try constantInts(arguments, "size", context)?.first ?? 1
        guard size >= 0 else { throw context.fail("size \(size) is negative") }
        let seed = try randomSeed(arguments, context)
        return { frame in
            let input = fetch(x, frame)
            guard let classes = input.shape.last, classes > 0 else { throw context.fail("x \(input.shape) has no classes on its last axis") }
            let shape = Array(input.shape.dropLast()) + [size]
            var values = try frame.unfilledBuffer(shape, context)
            var generator = RandomValues.generator(seed: seed, iteration: frame.iterations)
            var cumulative = [Double](repeating: 0, count: classes)
            for row in 0..<(input.count / classes) {
                let weights = input.values[(row * classes)..<((row + 1) * classes)]
                try RandomValues.cumulativeWeights(weights, logits: mode == "logits", into: &cumulative) { context.fail($0) }
                for sample in 0..<size {
                    values[row * size + sample] = Float(RandomValues.categorical(cumulative, &generator))
                }
            }
            frame[outputs[0]] = MILTensor(shape: shape, values: values)
        }
    }

    /// The constant `seed`, nil for −1 or none (different values on every run). (Values are held
    /// as Float, so a seed beyond 2²⁴ in magnitude is read as the float nearest it.)
    static func randomSeed(_ arguments: Arguments, _ context: OperationContext) throws -> Int? {
        guard let seed = try constantTensor(arguments, "seed", context)?.values.first else { return nil }
        guard seed.isFinite, seed.magnitude <= 0x1p62 else { throw context.fail("seed \(seed) is not an integer") }
        return seed == -1 ? nil : Int(seed)
    }
}

/// The random values themselves: the generator for a run, and uniform bits turned into the
/// distributions with arithmetic that rounds the same on every platform.
enum RandomValues {
    /// A generator for one run of a step: from `seed` and the run's loop iterations so far when
    /// the seed is fixed, from the system's generator when it is not.
    static func generator(seed: Int?, iteration: Int) -> SplitMix64 {
        guard let seed else {
            var system = SystemRandomNumberGenerator()
            return SplitMix64(seed: system.next())
        }
        // The seed and the iteration mixed by a first SplitMix64 step, so neighbouring seeds start far apart.
        var mixer = SplitMix64(seed: UInt64(bitPattern: Int64(seed)) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(iteration))
        return SplitMix64(seed: mixer.next())
    }

    /// A value in [0, 1) with 24 random bits (every float of the form k / 2²⁴).
    static func unit(_ generator: inout SplitMix64) -> Float {
        Float(generator.next() >> 40) * 0x1p-24
    }

    /// A value in (0, 1) with 53 random bits, never 0 (a logarithm's argument).
    static func openUnit(_ generator: inout SplitMix64) -> Double {
        (Double(generator.next() >> 11) + 0.5) * 0x1p-53
    }

    /// A standard normal value by Marsaglia's polar method (the second of each pair is dropped,
    /// so every value costs the same draws whatever came before).
    static func normal(_ generator: inout SplitMix64) -> Double {
        while true {
            let u = 2 * openUnit(&generator) - 1, v = 2 * openUnit(&generator) - 1
            let s = u * u + v * v
            guard s < 1, s > 0 else { continue }
            return u * (-2 * logarithm(s) / s).squareRoot()
        }
    }

    /// The natural logarithm of a positive finite `x`, to about one part in 10¹⁶: x = m · 2ᵉ with
    /// m in [√½, √2), and ln m = 2 artanh((m − 1)/(m + 1)) by its series.
    static func logarithm(_ x: Double) -> Double {
        var m = x.significand, e = Double(x.exponent)
        if m > 1.4142135623730951 {
            m /= 2
            e += 1
        }
        let s = (m - 1) / (m + 1), s2 = s * s
        var term = s, sum = 0.0
        for k in stride(from: 1.0, through: 29, by: 2) {  // |s| ≤ 0.172: s³¹ is below 10⁻²³
            sum += term / k
            term *= s2
        }
        return 2 * sum + e * 0.6931471805599453
    }

    /// e^x for x ≤ 0 (a logit less the row's largest), to about one part in 10¹⁶: x = k ln 2 + r
    /// with |r| ≤ ½ ln 2, e^r by its series, scaled by 2ᵏ exactly.
    static func exponential(_ x: Double) -> Double {
        guard x > -745 else { return 0 }
        let k = (x / 0.6931471805599453).rounded()
        let r = x - k * 0.6931471805599453
        var term = 1.0, sum = 1.0
        for n in 1...17 {  // r¹⁸/18! is below 10⁻²²
            term *= r / Double(n)
            sum += term
        }
        return Double(sign: .plus, exponent: Int(k), significand: sum)
    }

    /// The running sums of a distribution's weights, normalized to end at 1: probabilities as
    /// they are (any positive scale), logits through e^(logit − the largest).
    static func cumulativeWeights(_ weights: ArraySlice<Float>, logits: Bool, into cumulative: inout [Double],
                                  fail: (String) -> Error) throws {
        let largest = logits ? Double(weights.max() ?? 0) : 0
        guard largest.isFinite || !logits else { throw fail("logits \(Array(weights)) are not finite") }
        var total = 0.0
        for (index, weight) in weights.enumerated() {
            let value = Double(weight)
            guard !value.isNaN, logits || value >= 0 else { throw fail("probability \(weight) is negative or not a number") }
            total += logits ? exponential(value - largest) : value
            cumulative[index] = total
        }
        guard total > 0, total.isFinite else { throw fail("probabilities \(Array(weights)) do not sum to a positive number") }
        for index in cumulative.indices { cumulative[index] /= total }
    }

    /// The class whose cumulative interval holds a uniform value: the first with cumulative > u.
    static func categorical(_ cumulative: [Double], _ generator: inout SplitMix64) -> Int {
        let u = Double(generator.next() >> 11) * 0x1p-53
        var low = 0, high = cumulative.count - 1
        while low < high {
            let middle = (low + high) / 2
            if cumulative[middle] > u { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
