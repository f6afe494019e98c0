/// Normalizations: `batch_norm` with constant statistics, `instance_norm` over each channel's
/// spatial values, `layer_norm` over any set of axes. Variances are the population variance, and
/// `epsilon` (default 1e-5) is added to the variance before its square root. Also `l2_norm` over
/// the last three dimensions and `local_response_norm` across channels. The arithmetic is
/// ``Normalization``'s, shared with the classic layers; each step writes into the run's buffer pool.
extension MILOperations {
    static let normalizations: [String: Make] = [
        "batch_norm": batchNorm, "instance_norm": instanceNorm, "layer_norm": layerNorm,
        "l2_norm": l2Norm, "local_response_norm": localResponseNorm,
    ]

    /// A constant per-channel parameter of `count` values (`fallback` for each when absent).
    static func perChannel(_ arguments: Arguments, _ name: String, count: Int?, fallback: Float,
                           _ context: OperationContext) throws -> [Float]? {
        guard let tensor = try constantTensor(arguments, name, context) else { return count.map { [Float](repeating: fallback, count: $0) } }
        if let count, tensor.count != count { throw context.fail("input '\(name)' holds \(tensor.count) values, not \(count)") }
        return tensor.values
    }

    /// `(x - mean) / sqrt(variance + epsilon) * gamma + beta` per channel (axis 1), the statistics
    /// folded into one scale and shift per channel when the step is made.
    static let batchNorm: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context)
        guard let mean = try constantTensor(arguments, "mean", context), let variance = try constantTensor(arguments, "variance", context) else {
            throw context.fail("batch_norm needs constant mean and variance")
        }
        let channels = mean.count
        guard variance.count == channels else { throw context.fail("batch_norm's mean has \(channels) values, its variance \(variance.count)") }
        let gamma = try perChannel(arguments, "gamma", count: channels, fallback: 1, context)
        let beta = try perChannel(arguments, "beta", count: channels, fallback: 0, context)
        let epsilon = try constantFloat(arguments, "epsilon", context) ?? 1e-5
        var scale = [Float](repeating: 0, count: channels), shift = [Float](repeating: 0, count: channels)
        withOptionalPointer(gamma) { gamma in
            withOptionalPointer(beta) { beta in
                Normalization.fold(mean: mean.values, variance: variance.values, gamma: gamma, beta: beta, epsilon: epsilon,
                                   channels: channels, scale: &scale, shift: &shift)
            }
        }
        return { [scale, shift] slots in
            let input = fetch(x, slots)
            guard input.shape.count >= 2, input.shape[1] == channels else {
                throw context.fail("input \(input.shape) does not have \(channels) channels on axis 1")
            }
            let plane = input.shape[2...].reduce(1, *)
            var values = try slots.unfilledBuffer(input.shape, context)
            if input.count > 0 {
                Normalization.scaleAndShift(input.values, &values, scale: scale, shift: shift,
                                            blocks: input.count / (channels * plane), channels: channels, plane: plane)
            }
            slots[outputs[0]] = MILTensor(shape: input.shape, values: values)
        }
    }

    /// Each (batch, channel) plane normalized over its spatial values, then scaled and shifted
    /// per channel.
    static let instanceNorm: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context)
        let gamma = try perChannel(arguments, "gamma", count: nil, fallback: 1, context)
        let beta = try perChannel(arguments, "beta", count: nil, fallback: 0, context)
        let epsilon = try constantFloat(arguments, "epsilon", context) ?? 1e-5
        return { slots in
            let input = fetch(x, slots)
            guard input.shape.count >= 3 else { throw context.fail("input \(input.shape) is not N×C×spatial (rank 3 or more)") }
            let channels = input.shape[1], plane = input.shape[2...].reduce(1, *)
            for (name, values) in [("gamma", gamma), ("beta", beta)] where values != nil && values!.count != channels {
                throw context.fail("input '\(name)' holds \(values!.count) values for \(channels) channels")
            }
            var values = try slots.unfilledBuffer(input.shape, context)
            if input.count > 0 {
                let groups = Normalization.PlaneGroups(blocks: input.shape[0], channels: channels, plane: plane, perInstance: true)
                // Each plane's mean and 1/σ, in a scratch buffer from the pool.
                var statistics = try slots.unfilledBuffer([2, groups.count], context)
                statistics.withUnsafeMutableBufferPointer { moments in
                    let mean = moments.baseAddress!, inverseDeviation = mean + groups.count
                    Normalization.statistics(input.values, groups, epsilon: epsilon, mean: mean, inverseDeviation: inverseDeviation)
                    withOptionalPointer(gamma) { gamma in
                        withOptionalPointer(beta) { beta in
                            Normalization.normalize(input.values, &values, groups, mean: mean, inverseDeviation: inverseDeviation, gamma: gamma, beta: beta)
                        }
                    }
                }
                slots.recycle(statistics)
            }
            slots[outputs[0]] = MILTensor(shape: input.shape, values: values)
        }
    }

    /// Normalization over `axes` (default: all), `gamma` and `beta` shaped as the normalized
    /// dimensions in increasing axis order.
    static let layerNorm: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context)
        let axesValue = try constantInts(arguments, "axes", context)
        let gamma = try constantTensor(arguments, "gamma", context), beta = try constantTensor(arguments, "beta", context)
        let epsilon = try constantFloat(arguments, "epsilon", context) ?? 1e-5
        return { slots in
            let input = fetch(x, slots)
            let axes = try axes(axesValue, rank: input.shape.count, context)
            let normalized = axes.map { input.shape[$0] }, size = normalized.reduce(1, *)
            for (name, tensor) in [("gamma", gamma), ("beta", beta)] where tensor != nil && tensor!.count != size {
                throw context.fail("input '\(name)' holds \(tensor!.count) values; the normalized dimensions \(normalized) hold \(size)")
            }
            var values = try slots.unfilledBuffer(input.shape, context)
            Normalization.layerNorm(input.values, &values, shape: input.shape, axes: axes, gamma: gamma?.values, beta: beta?.values, epsilon: epsilon)
            slots[outputs[0]] = MILTensor(shape: input.shape, values: values)
        }
    }

    /// `x / √(Σx² + epsilon)` (epsilon default 1e-6), the sum over the last three dimensions of x
    /// (rank 3 or more), the leading ones each a batch of its own.
    static let l2Norm: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context)
        let epsilon = try constantFloat(arguments, "epsilon", context) ?? 1e-6
        return { slots in
            let input = fetch(x, slots)
            guard input.shape.count >= 3 else { throw context.fail("input \(input.shape) has rank below 3") }
            let size = input.shape.suffix(3).reduce(1, *)
            var values = try slots.unfilledBuffer(input.shape, context)
            if input.count > 0 {
                let blocks = input.count / size
                var inverseNorms = try slots.unfilledBuffer([blocks], context)
                Normalization.l2Normalize(input.values, &values, blocks: blocks, size: size, epsilon: epsilon, inverseNorms: &inverseNorms)
                slots.recycle(inverseNorms)
            }
            slots[outputs[0]] = MILTensor(shape: input.shape, values: values)
        }
    }

    /// `x / (k + alpha/size · Σ x²)^beta` across `size` neighbouring channels (axis 1 of N×C×…),
    /// alpha, beta and k defaulting to 1e-4, 0.75 and 1.
    static let localResponseNorm: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context)
        guard let size = try constantInts(arguments, "size", context)?.first, size > 0 else {
            throw context.fail("local_response_norm needs a constant positive size")
        }
        let alpha = try constantFloat(arguments, "alpha", context) ?? 1e-4
        let beta = try constantFloat(arguments, "beta", context) ?? 0.75
        let k = try constantFloat(arguments, "k", context) ?? 1
        return { slots in
            let input = fetch(x, slots)
            guard input.shape.count >= 3 else { throw context.fail("input \(input.shape) is not N×C×spatial (rank 3 or more)") }
            let channels = input.shape[1], plane = input.shape[2...].reduce(1, *)
            var values = try slots.unfilledBuffer(input.shape, context)
            if input.count > 0 {
                Normalization.localResponseNorm(input.values, &values, blocks: input.shape[0], channels: channels, plane: plane,
                                                size: size, alpha: alpha, beta: beta, k: k)
            }
            slots[outputs[0]] = MILTensor(shape: input.shape, values: values)
        }
    }
}
