import CoreMLSpec

/// Elementwise layers: the rank-N functions, comparisons, logical operations and broadcasting
/// arithmetic (iOS 13), and the classic average, max, min and dot product.
extension LayerLowering {
    /// A one-input MIL function keeping the rank.
    mutating func function(_ type: String, _ x: Value) -> Value {
        Value(name: op(type, ["x": x.name]), rank: x.rank)
    }

    /// asinh and acosh, which MIL lacks: log(x + √(x² ± 1)).
    mutating func inverseHyperbolic(_ x: Value, plus: Bool) -> Value {
        let root = op("sqrt", ["x": op(plus ? "add" : "sub", ["x": op("square", ["x": x.name]), "y": emitter.float(1)])])
        return Value(name: op("log", ["x": op("add", ["x": x.name, "y": root])]), rank: x.rank)
    }

    mutating func gelu(_ p: CoreML_Specification_GeluLayerParams, _ x: Value) throws -> Value {
        let mode: String
        switch p.mode {
        case .exact: mode = "EXACT"
        case .tanhApproximation: mode = "TANH_APPROXIMATION"
        case .sigmoidApproximation: mode = "SIGMOID_APPROXIMATION"
        case .UNRECOGNIZED(let value): throw LayerSpecificationError("unknown gelu mode \(value)")
        }
        return Value(name: op("gelu", ["x": x.name, "mode": emitter.string(mode)]), rank: x.rank)
    }

    /// A comparison of two inputs, or of one input with `alpha`; 1 where it holds, else 0.
    mutating func comparison(_ type: String, alpha: Float, _ inputs: [Value]) throws -> Value {
        guard let x = inputs.first else { throw LayerSpecificationError("the layer needs an input") }
        if inputs.count == 1 { return Value(name: op(type, ["x": x.name, "y": emitter.float(alpha)]), rank: x.rank) }
        return Value(name: op(type, ["x": x.name, "y": inputs[1].name]), rank: max(x.rank, inputs[1].rank))
    }

    /// A binary operation of exactly two inputs, with NumPy broadcasting.
    mutating func binary(_ type: String, _ inputs: [Value]) throws -> Value {
        guard inputs.count == 2 else { throw LayerSpecificationError("the layer takes 2 inputs, not \(inputs.count)") }
        return fold(type, inputs)
    }

    /// `minimum`/`maximum` (or `add` for the sum) of every input, broadcasting.
    mutating func many(_ type: String, _ inputs: [Value]) throws -> Value {
        guard !inputs.isEmpty else { throw LayerSpecificationError("the layer needs at least one input") }
        return fold(type, inputs)
    }

    mutating func average(_ inputs: [Value]) throws -> Value {
        let sum = try many("add", inputs)
        return Value(name: op("real_div", ["x": sum.name, "y": emitter.float(Float(inputs.count))]), rank: sum.rank)
    }

    /// The dot product of two vectors along C (`[…, C, 1, 1]`), or their cosine similarity; the
    /// output keeps the rank with C = 1.
    mutating func dot(_ p: CoreML_Specification_DotProductLayerParams, _ inputs: [Value]) throws -> Value {
        guard inputs.count == 2 else { throw LayerSpecificationError("dot takes 2 inputs, not \(inputs.count)") }
        let (x, y) = (inputs[0], inputs[1])
        let rank = max(x.rank, y.rank)
        let axes = emitter.ints([rank >= 3 ? -3 : -1]), keep = emitter.bool(true)
        var result = op("reduce_sum", ["x": op("mul", ["x": x.name, "y": y.name]), "axes": axes, "keep_dims": keep])
        if p.cosineSimilarity {
            let norms = op("mul", ["x": op("reduce_l2_norm", ["x": x.name, "axes": axes, "keep_dims": keep]),
                                   "y": op("reduce_l2_norm", ["x": y.name, "axes": axes, "keep_dims": keep])])
            result = op("real_div", ["x": result, "y": op("maximum", ["x": norms, "y": emitter.float(1e-12)])])
        }
        return Value(name: result, rank: rank)
    }

    /// `select`: the second input where the first is non-zero, else the third.
    mutating func whereBroadcastable(_ inputs: [Value]) throws -> Value {
        guard inputs.count == 3 else { throw LayerSpecificationError("whereBroadcastable takes 3 inputs, not \(inputs.count)") }
        return Value(name: op("select", ["cond": inputs[0].name, "a": inputs[1].name, "b": inputs[2].name]), rank: inputs.map(\.rank).max()!)
    }
}
