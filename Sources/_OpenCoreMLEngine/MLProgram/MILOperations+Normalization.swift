import _OpenCoreMLKernels

/// Normalizations: `batch_norm` with constant statistics, `instance_norm` over each channel's
/// spatial values, `layer_norm` over any set of axes. Variances are the population variance, and
/// `epsilon` (default 1e-5) is added to the variance before its square root.
extension MILOperations {
    static let normalizations: [String: Make] = [
        "batch_norm": batchNorm, "instance_norm": instanceNorm, "layer_norm": layerNorm,
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
        let gamma = try perChannel(arguments, "gamma", count: channels, fallback: 1, context)!
        let beta = try perChannel(arguments, "beta", count: channels, fallback: 0, context)!
        let epsilon = try constantFloat(arguments, "epsilon", context) ?? 1e-5
        let scale = (0..<channels).map { gamma[$0] / (variance.values[$0] + epsilon).squareRoot() }
        let shift = (0..<channels).map { beta[$0] - mean.values[$0] * scale[$0] }
        return { slots in
            let input = fetch(x, slots)
            guard input.shape.count >= 2, input.shape[1] == channels else {
                throw context.fail("input \(input.shape) does not have \(channels) channels on axis 1")
            }
            let inner = input.shape[2...].reduce(1, *)
            var values = input.values
            for start in stride(from: 0, to: values.count, by: max(inner, 1)) {
                let c = (start / max(inner, 1)) % channels
                for i in start..<(start + inner) { values[i] = values[i] * scale[c] + shift[c] }
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
            var values = input.values
            for start in stride(from: 0, to: values.count, by: max(plane, 1)) {
                let c = (start / max(plane, 1)) % channels
                normalize(&values, start..<(start + plane), scale: gamma?[c] ?? 1, shift: beta?[c] ?? 0, epsilon: epsilon)
            }
            slots[outputs[0]] = MILTensor(shape: input.shape, values: values)
        }
    }

    /// Normalizes a run of values in place: `(v - mean) / sqrt(variance + epsilon) * scale + shift`.
    static func normalize(_ values: inout [Float], _ run: Range<Int>, scale: Float, shift: Float, epsilon: Float) {
        guard !run.isEmpty else { return }
        var sum: Float = 0
        for i in run { sum += values[i] }
        let mean = sum / Float(run.count)
        var squares: Float = 0
        for i in run { squares += (values[i] - mean) * (values[i] - mean) }
        let factor = scale / (squares / Float(run.count) + epsilon).squareRoot()
        for i in run { values[i] = (values[i] - mean) * factor + shift }
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
            let rank = input.shape.count
            let axes = try axes(axesValue, rank: rank, context)
            let normalized = axes.map { input.shape[$0] }, size = normalized.reduce(1, *)
            for (name, tensor) in [("gamma", gamma), ("beta", beta)] where tensor != nil && tensor!.count != size {
                throw context.fail("input '\(name)' holds \(tensor!.count) values; the normalized dimensions \(normalized) hold \(size)")
            }
            if axes == Array((rank - axes.count)..<rank), size > 0, size <= Int(Int32.max), input.count / size <= Int(Int32.max) {
                // The usual case, the last dimensions (each group one contiguous row): the C kernel,
                // gamma and beta included, threaded over rows.
                var values = try slots.unfilledBuffer(input.shape, context)
                let rows = Int32(input.count / size)
                withOptionalPointer(gamma?.values) { gammaValues in
                    withOptionalPointer(beta?.values) { betaValues in
                        ocm_layer_norm_rows(input.values, &values, gammaValues, betaValues, rows, Int32(size), Int32(size), Int32(size), epsilon)
                    }
                }
                slots[outputs[0]] = MILTensor(shape: input.shape, values: values)
                return
            }
            var values = input.values
            if axes == Array((rank - axes.count)..<rank) {
                // The usual case: the last dimensions, so each group is one contiguous run.
                for start in stride(from: 0, to: values.count, by: max(size, 1)) {
                    normalize(&values, start..<(start + size), scale: 1, shift: 0, epsilon: epsilon)
                }
            } else {
                normalizeScattered(&values, shape: input.shape, axes: axes, epsilon: epsilon)
            }
            if gamma != nil || beta != nil {
                // Row-major position within the normalized dimensions, for each value.
                var parameterStrides = [Int](repeating: 0, count: rank)
                var step = 1
                for axis in axes.reversed() { parameterStrides[axis] = step; step *= input.shape[axis] }
                var index = [Int](repeating: 0, count: rank)
                for position in values.indices {
                    var k = 0
                    for d in 0..<rank { k += index[d] * parameterStrides[d] }
                    values[position] = values[position] * (gamma?.values[k] ?? 1) + (beta?.values[k] ?? 0)
                    advance(&index, within: input.shape)
                }
            }
            slots[outputs[0]] = MILTensor(shape: input.shape, values: values)
        }
    }

    /// Normalizes groups of values that share every index outside `axes` (not contiguous runs).
    static func normalizeScattered(_ values: inout [Float], shape: [Int], axes: [Int], epsilon: Float) {
        var kept = shape
        for axis in axes { kept[axis] = 1 }
        let groupStrides = broadcastStrides(kept), groups = kept.reduce(1, *), rank = shape.count
        let size = Float(max(axes.map { shape[$0] }.reduce(1, *), 1))
        var group = [Int](repeating: 0, count: values.count)
        var index = [Int](repeating: 0, count: rank)
        for position in values.indices {
            for d in 0..<rank { group[position] += index[d] * groupStrides[d] }
            advance(&index, within: shape)
        }
        var mean = [Float](repeating: 0, count: groups), variance = [Float](repeating: 0, count: groups)
        for position in values.indices { mean[group[position]] += values[position] }
        for g in 0..<groups { mean[g] /= size }
        for position in values.indices {
            let d = values[position] - mean[group[position]]
            variance[group[position]] += d * d
        }
        let factor = variance.map { 1 / ($0 / size + epsilon).squareRoot() }
        for position in values.indices { values[position] = (values[position] - mean[group[position]]) * factor[group[position]] }
    }
}
