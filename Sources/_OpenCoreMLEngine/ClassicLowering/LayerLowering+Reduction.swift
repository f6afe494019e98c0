import CoreMLSpec

/// Reductions, arg-reductions, sorting, cumulative sums and the normalizations that reduce (mvn,
/// lrn, layer normalization).
extension LayerLowering {
    /// A rank-N reduction over `axes` (every axis with `reduceAll`), keeping the reduced axes as 1
    /// when `keepDims`.
    mutating func reduction(_ type: String, axes: [Int64], keepDims: Bool, reduceAll: Bool, _ x: Value) -> Value {
        var inputs = ["x": x.name, "keep_dims": emitter.bool(keepDims)]
        let count: Int
        if reduceAll || axes.isEmpty {
            count = max(x.rank, 0)
        } else {
            inputs["axes"] = emitter.ints(axes.map { Int(clamping: $0) })
            count = axes.count
        }
        let rank = keepDims ? x.rank : (x.rank < 0 || reduceAll || axes.isEmpty ? 0 : x.rank - count)
        return atLeastOneDimension(Value(name: op(type, inputs), rank: rank))
    }

    /// Classic reduce over C, H, W or their combinations, the reduced axes kept as 1.
    mutating func classicReduce(_ p: CoreML_Specification_ReduceLayerParams, _ x: Value) throws -> Value {
        let axes: [Int]
        switch p.axis {
        case .chw: axes = [-3, -2, -1]
        case .hw: axes = [-2, -1]
        case .c: axes = [-3]
        case .h: axes = [-2]
        case .w: axes = [-1]
        case .UNRECOGNIZED(let value): throw LayerSpecificationError("unknown reduce axis \(value)")
        }
        guard x.rank >= -axes.min()! else { throw LayerSpecificationError("the input has rank \(x.rank); reducing over axes \(axes) needs more") }
        let type: String
        switch p.mode {
        case .sum: type = "reduce_sum"
        case .avg: type = "reduce_mean"
        case .prod: type = "reduce_prod"
        case .logsum: type = "reduce_log_sum"
        case .sumsquare: type = "reduce_sum_square"
        case .l1: type = "reduce_l1_norm"
        case .l2: type = "reduce_l2_norm"
        case .max: type = "reduce_max"
        case .min: type = "reduce_min"
        case .argmax:
            guard axes.count == 1 else { throw LayerSpecificationError("argmax reduces along one axis (C, H or W), not \(p.axis)") }
            type = "reduce_argmax"
        case .UNRECOGNIZED(let value): throw LayerSpecificationError("unknown reduce mode \(value)")
        }
        var inputs = ["x": x.name, "keep_dims": emitter.bool(true)]
        if type == "reduce_argmax" { inputs["axis"] = emitter.int(axes[0]) } else { inputs["axes"] = emitter.ints(axes) }
        return Value(name: op(type, inputs), rank: x.rank)
    }

    mutating func argIndex(_ type: String, axis: Int64, removeDim: Bool, _ x: Value) -> Value {
        let y = op(type, ["x": x.name, "axis": emitter.int(Int(axis)), "keep_dims": emitter.bool(!removeDim)])
        return atLeastOneDimension(Value(name: y, rank: removeDim ? x.rank - 1 : x.rank))
    }

    /// The `K` largest (or smallest) values along `axis` and their indices; `K` from the second input
    /// when there is one.
    mutating func topK(_ p: CoreML_Specification_TopKLayerParams, _ inputs: [Value]) throws -> [Value] {
        guard let x = inputs.first else { throw LayerSpecificationError("topK needs an input") }
        var arguments = ["x": [x.name], "axis": [emitter.int(Int(p.axis))], "ascending": [emitter.bool(p.useBottomK)]]
        arguments["k"] = [inputs.count > 1 ? reshape(inputs[1].name, keeping: 0, then: []) : emitter.int(try declared(p.k, "K"))]
        let names = [emitter.name("topk"), emitter.name("topk")]
        emitter.operation("topk", arguments, outputs: names)
        return names.map { Value(name: $0, rank: x.rank) }
    }

    mutating func argSort(_ p: CoreML_Specification_ArgSortLayerParams, _ x: Value) -> Value {
        Value(name: op("argsort", ["x": x.name, "axis": emitter.int(Int(p.axis)), "ascending": emitter.bool(!p.descending)]), rank: x.rank)
    }

    mutating func cumSum(_ p: CoreML_Specification_CumSumLayerParams, _ inputs: [Value]) throws -> Value {
        guard let x = inputs.first else { throw LayerSpecificationError("cumSum needs an input") }
        guard inputs.count == 1 else { throw LayerSpecificationError("an axis given as a second input is not supported; set axis") }
        let y = op("cumsum", ["x": x.name, "axis": emitter.int(Int(p.axis)), "exclusive": emitter.bool(p.excludeFinalSum), "reverse": emitter.bool(p.reverse)])
        return Value(name: y, rank: x.rank)
    }

    /// `(x − mean) / √(variance + ε)` over C, H, W (or each channel's H, W), or only `x − mean`.
    mutating func meanVarianceNormalize(_ p: CoreML_Specification_MeanVarianceNormalizeLayerParams, _ x: Value) throws -> Value {
        guard x.rank >= 2 else { throw LayerSpecificationError("mvn needs H and W (rank 2 or more), not rank \(x.rank)") }
        let axes = emitter.ints(p.acrossChannels && x.rank >= 3 ? [-3, -2, -1] : [-2, -1]), keep = emitter.bool(true)
        let centered = op("sub", ["x": x.name, "y": op("reduce_mean", ["x": x.name, "axes": axes, "keep_dims": keep])])
        guard p.normalizeVariance else { return Value(name: centered, rank: x.rank) }
        let variance = op("reduce_mean", ["x": op("square", ["x": centered]), "axes": axes, "keep_dims": keep])
        let y = op("real_div", ["x": centered, "y": op("sqrt", ["x": op("add", ["x": variance, "y": emitter.float(p.epsilon)])])])
        return Value(name: y, rank: x.rank)
    }

    mutating func localResponseNorm(_ p: CoreML_Specification_LRNLayerParams, _ x: Value) throws -> Value {
        let size = try declared(p.localSize, "localSize")
        return try asNCHW(x) { lowering, nchw in
            lowering.op("local_response_norm", [
                "x": nchw, "size": lowering.emitter.int(size), "alpha": lowering.emitter.float(p.alpha),
                "beta": lowering.emitter.float(p.beta), "k": lowering.emitter.float(p.k == 0 ? 1 : p.k),
            ])
        }
    }

    /// Normalizes over the last `normalizedShape.count` axes, then scales by γ and shifts by β (both
    /// of `normalizedShape`).
    mutating func layerNormalization(_ p: CoreML_Specification_LayerNormalizationLayerParams, _ x: Value) throws -> Value {
        let shape = try declaredSizes(p.normalizedShape, "normalizedShape")
        guard !shape.isEmpty else { throw LayerSpecificationError("normalizedShape is empty") }
        let count = try count(shape, "normalizedShape")
        var inputs = ["x": x.name, "axes": emitter.ints(Array((-shape.count)...(-1))), "epsilon": emitter.float(p.eps)]
        inputs["gamma"] = emitter.floats(try weights(p.gamma, "gamma", count: count), shape: shape)
        inputs["beta"] = emitter.floats(try weights(p.beta, "beta", count: count), shape: shape)
        return Value(name: op("layer_norm", inputs), rank: x.rank)
    }
}
