import CoreMLSpec

/// The classic (rank-5 era) layers as MIL operations: each reads the last three dimensions of its
/// input as C, H, W and keeps the dimensions before them.
extension LayerLowering {
    /// A convolution or deconvolution; `weight`, when given, is the layer's second input, its weights
    /// computed by the network (`[C_out, kernelChannels, kH, kW]`, iOS 13), read at every run.
    mutating func convolution(_ p: CoreML_Specification_ConvolutionLayerParams, _ x: Value, weight: Value? = nil) throws -> Value {
        let outputChannels = try declared(p.outputChannels, "outputChannels"), groups = max(1, try declared(p.nGroups, "nGroups"))
        guard outputChannels > 0, outputChannels % groups == 0 else {
            throw LayerSpecificationError("outputChannels (\(outputChannels)) must be a positive multiple of nGroups (\(groups))")
        }
        let (kernel, stride, dilation) = try p.windowSizes()
        guard kernel.0 > 0, kernel.1 > 0, stride.0 > 0, stride.1 > 0, dilation.0 > 0, dilation.1 > 0 else {
            throw LayerSpecificationError("kernelSize \(p.kernelSize), stride \(p.stride) and dilationFactor \(p.dilationFactor) must be positive")
        }
        if let weight {
            guard !p.isDeconvolution else { throw LayerSpecificationError("a deconvolution takes its weights from the layer, not from a second input") }
            return try convolution(p, x, computedWeight: weight.name, outputChannels: outputChannels, groups: groups,
                                   stride: stride, dilation: dilation)
        }
        let values = try weights(p.weights, "weights")
        let shape: [Int]
        if p.isDeconvolution {
            // [C_in, C_out / groups, kH, kW]
            let inner = try count([outputChannels / groups, kernel.0, kernel.1], "outputChannels / nGroups × kernel")
            guard !values.isEmpty, values.count % inner == 0 else {
                throw LayerSpecificationError("weights hold \(values.count) values, not a multiple of \(inner) (outputChannels / nGroups × kH × kW)")
            }
            shape = [values.count / inner, outputChannels / groups, kernel.0, kernel.1]
        } else {
            let kernelChannels = try declared(p.kernelChannels, "kernelChannels")
            let expected = try count([outputChannels, kernelChannels, kernel.0, kernel.1], "outputChannels × kernelChannels × kernel")
            guard values.count == expected else {
                throw LayerSpecificationError("weights hold \(values.count) values; outputChannels × kernelChannels × kH × kW is \(expected)")
            }
            shape = [outputChannels, kernelChannels, kernel.0, kernel.1]
        }
        let bias = p.hasBias_p ? try weights(p.bias, "bias", count: outputChannels) : nil
        let (padType, pad) = try Self.padding(p.convolutionPaddingType)
        let outputShape = try declaredSizes(p.outputShape, "outputShape")
        if !outputShape.isEmpty && outputShape.count != 2 { throw LayerSpecificationError("outputShape \(p.outputShape) must be [H, W]") }
        return try asNCHW(x) { lowering, nchw in
            var inputs = [
                "x": nchw, "weight": lowering.emitter.floats(values, shape: shape),
                "strides": lowering.emitter.ints([stride.0, stride.1]), "dilations": lowering.emitter.ints([dilation.0, dilation.1]),
                "pad_type": lowering.emitter.string(padType), "pad": lowering.emitter.ints(pad), "groups": lowering.emitter.int(groups),
            ]
            if let bias { inputs["bias"] = lowering.emitter.floats(bias, shape: [outputChannels]) }
            if p.isDeconvolution, outputShape.count == 2 {
                inputs["output_shape"] = lowering.emitter.ints([1, outputChannels, outputShape[0], outputShape[1]])
            }
            return lowering.op(p.isDeconvolution ? "conv_transpose" : "conv", inputs)
        }
    }

    /// A convolution whose weights are the value `computedWeight`.
    private mutating func convolution(_ p: CoreML_Specification_ConvolutionLayerParams, _ x: Value, computedWeight: String, outputChannels: Int,
                                      groups: Int, stride: (Int, Int), dilation: (Int, Int)) throws -> Value {
        let bias = p.hasBias_p ? try weights(p.bias, "bias", count: outputChannels) : nil
        let (padType, pad) = try Self.padding(p.convolutionPaddingType)
        return try asNCHW(x) { lowering, nchw in
            var inputs = [
                "x": nchw, "weight": computedWeight,
                "strides": lowering.emitter.ints([stride.0, stride.1]), "dilations": lowering.emitter.ints([dilation.0, dilation.1]),
                "pad_type": lowering.emitter.string(padType), "pad": lowering.emitter.ints(pad), "groups": lowering.emitter.int(groups),
            ]
            if let bias { inputs["bias"] = lowering.emitter.floats(bias, shape: [outputChannels]) }
            return lowering.op("conv", inputs)
        }
    }

    /// MIL's `pad_type` and `pad` (`[top, bottom, left, right]`) for a classic padding choice.
    static func padding(_ type: CoreML_Specification_ConvolutionLayerParams.OneOf_ConvolutionPaddingType?) throws -> (String, [Int]) {
        switch type {
        case .same(let same)?: return (same.asymmetryMode == .topLeftHeavy ? "same_lower" : "same", [0, 0, 0, 0])
        case .valid(let valid)?: return ("custom", try borders(valid.paddingAmounts))
        case nil: return ("custom", [0, 0, 0, 0])
        }
    }

    static func borders(_ amounts: CoreML_Specification_BorderAmounts) throws -> [Int] {
        let edges = amounts.borderAmounts
        guard !edges.isEmpty else { return [0, 0, 0, 0] }
        guard edges.count == 2 else { throw LayerSpecificationError("paddingAmounts has \(edges.count) edge sizes; 2 (height, width) expected") }
        return try edges.flatMap { [try declared($0.startEdgeSize, "paddingAmounts"), try declared($0.endEdgeSize, "paddingAmounts")] }
    }

    mutating func pooling(_ p: CoreML_Specification_PoolingLayerParams, _ x: Value) throws -> Value {
        let type: String
        switch p.type {
        case .max: type = "max"
        case .average: type = "avg"
        case .l2: type = "l2"
        case .UNRECOGNIZED(let value): throw LayerSpecificationError("unknown pooling type \(value)")
        }
        if p.globalPooling {
            guard x.rank >= 2 else { throw LayerSpecificationError("global pooling needs H and W (rank 2 or more), not rank \(x.rank)") }
            let reduction = ["max": "reduce_max", "avg": "reduce_mean", "l2": "reduce_l2_norm"][type]!
            let y = op(reduction, ["x": x.name, "axes": emitter.ints([-2, -1]), "keep_dims": emitter.bool(true)])
            return Value(name: y, rank: x.rank)
        }
        let kernel = try declaredPair(p.kernelSize, "kernelSize", fallback: (3, 3)), stride = try declaredPair(p.stride, "stride", fallback: (1, 1))
        guard kernel.0 > 0, kernel.1 > 0, stride.0 > 0, stride.1 > 0 else {
            throw LayerSpecificationError("kernelSize \(p.kernelSize) and stride \(p.stride) must be positive")
        }
        var padType = "custom", pad = [0, 0, 0, 0], ceil = false
        switch p.poolingPaddingType {
        case .valid(let valid)?: pad = try Self.borders(valid.paddingAmounts)
        case .same(let same)?: padType = same.asymmetryMode == .topLeftHeavy ? "same_lower" : "same"
        case .includeLastPixel(let last)?:
            // Caffe's windows: the same amount on both sides, and a last window that may overhang.
            let amounts = try declaredSizes(last.paddingAmounts, "paddingAmounts")
            if amounts.count == 2 { pad = [amounts[0], amounts[0], amounts[1], amounts[1]] }
            ceil = true
        case nil: ceil = true
        }
        return try asNCHW(x) { lowering, nchw in
            var inputs = [
                "x": nchw, "kernel_sizes": lowering.emitter.ints([kernel.0, kernel.1]), "strides": lowering.emitter.ints([stride.0, stride.1]),
                "pad_type": lowering.emitter.string(padType), "pad": lowering.emitter.ints(pad), "ceil_mode": lowering.emitter.bool(ceil),
            ]
            if type == "avg" { inputs["exclude_padding_from_average"] = lowering.emitter.bool(p.avgPoolExcludePadding) }
            return lowering.op("\(type)_pool", inputs)
        }
    }

    mutating func activation(_ p: CoreML_Specification_ActivationParams, _ x: Value) throws -> Value {
        let e = { (lowering: inout LayerLowering, value: Float) in lowering.emitter.float(value) }
        let y: String
        switch p.nonlinearityType {
        case .linear(let a)?: y = op("linear_activation", ["x": x.name, "alpha": e(&self, a.alpha), "beta": e(&self, a.beta)])
        case .reLu?: y = op("relu", ["x": x.name])
        case .leakyReLu(let a)?: y = op("leaky_relu", ["x": x.name, "alpha": e(&self, a.alpha)])
        case .thresholdedReLu(let a)?:
            // The classic layer keeps x > alpha, MIL's x ≥ alpha: the same for the float just above alpha.
            y = op("thresholded_relu", ["x": x.name, "alpha": e(&self, a.alpha.isFinite ? a.alpha.nextUp : a.alpha)])
        case .preLu(let a)?:
            // max(x, 0) + α·min(x, 0), α per channel or shared.
            let alpha = perChannel(try weights(a.alpha, "alpha"))
            let negative = op("mul", ["x": alpha, "y": op("minimum", ["x": x.name, "y": e(&self, 0)])])
            y = op("add", ["x": op("relu", ["x": x.name]), "y": negative])
        case .tanh?: y = op("tanh", ["x": x.name])
        case .scaledTanh(let a)?: y = op("scaled_tanh", ["x": x.name, "alpha": e(&self, a.alpha), "beta": e(&self, a.beta)])
        case .sigmoid?: y = op("sigmoid", ["x": x.name])
        case .sigmoidHard(let a)?: y = op("sigmoid_hard", ["x": x.name, "alpha": e(&self, a.alpha), "beta": e(&self, a.beta)])
        case .elu(let a)?: y = op("elu", ["x": x.name, "alpha": e(&self, a.alpha)])
        case .softsign?: y = op("softsign", ["x": x.name])
        case .softplus?: y = op("softplus", ["x": x.name])
        case .parametricSoftplus(let a)?:
            // α·log(1 + exp(β·x)), α and β per channel or shared.
            let alpha = perChannel(try weights(a.alpha, "alpha")), beta = perChannel(try weights(a.beta, "beta"))
            y = op("mul", ["x": alpha, "y": op("softplus", ["x": op("mul", ["x": x.name, "y": beta])])])
        case nil: throw LayerSpecificationError("no activation type is set")
        }
        return Value(name: y, rank: x.rank)
    }

    /// `(…, C_in)` to `(…, C_out)` keeping the rank: ranks 1 and 2 (and 3 under the exact mapping)
    /// multiply the last axis; otherwise the last three axes (C × H × W values) become
    /// `[C_out, 1, 1]`.
    mutating func innerProduct(_ p: CoreML_Specification_InnerProductLayerParams, _ x: Value) throws -> Value {
        let inputs = try declared(p.inputChannels, "inputChannels"), outputs = try declared(p.outputChannels, "outputChannels")
        let weight = emitter.floats(try weights(p.weights, "weights", count: inputs * outputs), shape: [outputs, inputs])
        var arguments = ["weight": weight]
        if p.hasBias_p { arguments["bias"] = emitter.floats(try weights(p.bias, "bias", count: outputs), shape: [outputs]) }
        // Under the exact mapping ranks up to 3 multiply their last axis (Core ML's rank rule).
        if x.rank <= 2 || (exactMapping && x.rank == 3) {
            arguments["x"] = x.name
            return Value(name: op("linear", arguments), rank: x.rank)
        }
        arguments["x"] = reshape(x.name, keeping: x.rank - 3, then: [inputs])
        let y = op("linear", arguments)
        return Value(name: reshape(y, keeping: x.rank - 3, then: [outputs, 1, 1]), rank: x.rank)
    }

    /// One index per position (`[…, 1, 1, 1]`) to that column of the weights, `[…, C_out, 1, 1]`.
    mutating func embedding(_ p: CoreML_Specification_EmbeddingLayerParams, _ x: Value) throws -> Value {
        let vocabulary = try declared(p.inputDim, "inputDim"), outputs = try declared(p.outputChannels, "outputChannels")
        // Stored [C_out, inputDim]; gathered by rows of its transpose.
        let stored = try weights(p.weights, "weights", count: vocabulary * outputs)
        var table = [Float](repeating: 0, count: stored.count)
        for o in 0..<outputs { for v in 0..<vocabulary { table[v * outputs + o] = stored[o * vocabulary + v] } }
        let indices = reshape(x.name, keeping: 0, then: [-1])
        var y = op("gather", ["x": emitter.floats(table, shape: [vocabulary, outputs]), "indices": indices, "axis": emitter.int(0)])
        if p.hasBias_p { y = op("add", ["x": y, "y": emitter.floats(try weights(p.bias, "bias", count: outputs), shape: [outputs])]) }
        let rank = max(x.rank, 3)
        return Value(name: reshape(y, keeping: 0, then: x.rank > 3 ? [-1] + [Int](repeating: 1, count: x.rank - 4) + [outputs, 1, 1] : [outputs, 1, 1]), rank: rank)
    }

    mutating func batchnorm(_ p: CoreML_Specification_BatchnormLayerParams, _ x: Value) throws -> Value {
        let channels = try declared(p.channels, "channels")
        let gamma = try weights(p.gamma, "gamma", count: channels), beta = try weights(p.beta, "beta", count: channels)
        let epsilon = p.epsilon
        guard x.rank >= 3 else { throw LayerSpecificationError("batchnorm needs C, H and W (rank 3 or more), not rank \(x.rank)") }
        if p.computeMeanVar {
            // Statistics of this input: per channel over H and W (instance normalization), or also
            // over the leading dimensions.
            let axes = p.instanceNormalization ? [-2, -1] : [-2, -1] + (0..<(x.rank - 3)).map { $0 }
            let mean = op("reduce_mean", ["x": x.name, "axes": emitter.ints(axes), "keep_dims": emitter.bool(true)])
            let centered = op("sub", ["x": x.name, "y": mean])
            let variance = op("reduce_mean", ["x": op("square", ["x": centered]), "axes": emitter.ints(axes), "keep_dims": emitter.bool(true)])
            let normalized = op("real_div", ["x": centered, "y": op("sqrt", ["x": op("add", ["x": variance, "y": emitter.float(epsilon)])])])
            let y = op("add", ["x": op("mul", ["x": normalized, "y": perChannel(gamma)]), "y": perChannel(beta)])
            return Value(name: y, rank: x.rank)
        }
        let mean = try weights(p.mean, "mean", count: channels), variance = try weights(p.variance, "variance", count: channels)
        var scale = [Float](repeating: 0, count: channels), shift = scale
        for c in 0..<channels {
            scale[c] = gamma[c] / (variance[c] + epsilon).squareRoot()
            shift[c] = beta[c] - mean[c] * scale[c]
        }
        let y = op("add", ["x": op("mul", ["x": x.name, "y": perChannel(scale)]), "y": perChannel(shift)])
        return Value(name: y, rank: x.rank)
    }

    mutating func l2Normalize(_ p: CoreML_Specification_L2NormalizeLayerParams, _ x: Value) throws -> Value {
        var input = x
        // The sum runs over C×H×W; a lower rank is read as [1, 1, W] or [1, H, W].
        if x.rank < 3 { input = Value(name: expandDims(x.name, Array(0..<(3 - x.rank))), rank: 3) }
        var y = op("l2_norm", ["x": input.name, "epsilon": emitter.float(p.epsilon == 0 ? 1e-6 : p.epsilon)])
        if x.rank < 3 { y = squeeze(y, Array(0..<(3 - x.rank))) }
        return Value(name: y, rank: x.rank)
    }

    /// Classic softmax: along C (axis rank − 3); Core ML takes inputs of rank 3 or more (softmaxND
    /// normalizes along any axis).
    mutating func softmax(_ x: Value) throws -> Value {
        guard x.rank >= 3 else {
            throw LayerSpecificationError("softmax normalizes along C and needs an input of rank 3 or more, not \(x.rank) (use softmaxND for other axes)")
        }
        return Value(name: op("softmax", ["x": x.name, "axis": emitter.int(-3)]), rank: x.rank)
    }

    mutating func padding(_ p: CoreML_Specification_PaddingLayerParams, _ x: Value) throws -> Value {
        let pad = try Self.borders(p.paddingAmounts)
        guard x.rank >= 2 else { throw LayerSpecificationError("padding needs H and W (rank 2 or more), not rank \(x.rank)") }
        var inputs = ["x": x.name, "pad": emitter.ints(pad)]
        switch p.paddingType {
        case .constant(let constant)?:
            inputs["mode"] = emitter.string("constant")
            inputs["constant_val"] = emitter.float(constant.value)
        case .reflection?: inputs["mode"] = emitter.string("reflect")
        case .replication?: inputs["mode"] = emitter.string("replicate")
        case nil: throw LayerSpecificationError("no padding type is set")
        }
        return Value(name: op("pad", inputs), rank: x.rank)
    }

    /// Nearest neighbour, or bilinear on the grid `linearUpsampleMode` names; the output plane is
    /// the input's times the factors, rounded down.
    mutating func upsample(_ p: CoreML_Specification_UpsampleLayerParams, _ x: Value) throws -> Value {
        let factor = try p.scalingFactors()
        guard x.rank >= 2 else { throw LayerSpecificationError("upsample needs H and W (rank 2 or more), not rank \(x.rank)") }
        if case .UNRECOGNIZED(let mode) = p.mode { throw LayerSpecificationError("unknown interpolation mode \(mode)") }
        let plane = dimensions(of: x.name, from: x.rank - 2, to: x.rank)
        let sizes = op("floor", ["x": op("mul", ["x": plane, "y": emitter.floats([Float(factor.height), Float(factor.width)], shape: [2])])])
        var inputs = ["x": x.name, "shape": sizes, "resized_dims": emitter.int(2)]
        if p.mode == .bilinear {
            inputs["interpolation_mode"] = emitter.string("LINEAR")
            let sampling: String
            switch p.linearUpsampleMode {
            case .alignCornersTrue: sampling = "STRICT_ALIGN_CORNERS"
            case .alignCornersFalse: sampling = "UNALIGN_CORNERS"
            default: sampling = "DEFAULT"
            }
            inputs["sampling_mode"] = emitter.string(sampling)
        } else {
            inputs["interpolation_mode"] = emitter.string("NEAREST_NEIGHBOR")
        }
        return Value(name: op("resize", inputs), rank: x.rank)
    }

    /// `f(scale·x + shift)`.
    mutating func unary(_ p: CoreML_Specification_UnaryFunctionLayerParams, _ x: Value) throws -> Value {
        var v = x.name
        let scale = p.scale == 0 ? 1 : p.scale
        if scale != 1 { v = op("mul", ["x": v, "y": emitter.float(scale)]) }
        if p.shift != 0 { v = op("add", ["x": v, "y": emitter.float(p.shift)]) }
        let epsilon = p.epsilon == 0 ? 1e-6 : p.epsilon
        let y: String
        switch p.type {
        case .sqrt: y = op("sqrt", ["x": v])
        case .rsqrt: y = op("rsqrt", ["x": v, "epsilon": emitter.float(epsilon)])
        case .inverse: y = op("inverse", ["x": v, "epsilon": emitter.float(epsilon)])
        case .power: y = op("pow", ["x": v, "y": emitter.float(p.alpha)])
        case .exp: y = op("exp", ["x": v])
        // Core ML's log adds its epsilon only when one is given.
        case .log: y = op("log", ["x": p.epsilon == 0 ? v : op("add", ["x": v, "y": emitter.float(p.epsilon)])])
        case .abs: y = op("abs", ["x": v])
        case .threshold: y = op("maximum", ["x": v, "y": emitter.float(p.alpha)])
        case .UNRECOGNIZED(let value): throw LayerSpecificationError("unknown unary operation \(value)")
        }
        return Value(name: y, rank: x.rank)
    }

    /// `add` or `multiply` of the inputs (broadcasting along axes of size 1), or of the one input
    /// and `alpha`.
    mutating func sumOrProduct(_ type: String, alpha: Float, _ inputs: [Value]) throws -> Value {
        guard !inputs.isEmpty else { throw LayerSpecificationError("the layer needs at least one input") }
        if inputs.count == 1 { return Value(name: op(type, ["x": inputs[0].name, "y": emitter.float(alpha)]), rank: inputs[0].rank) }
        return fold(type, inputs)
    }

    /// A scale or bias parameter as a constant that broadcasts over the classic view of `x`.
    mutating func classicParameter(_ values: [Float], declared shape: [UInt64], _ name: String) throws -> String {
        let dims = try declaredSizes(shape, name)
        switch dims.count {
        case 0, 1 where values.count == 1: return emitter.float(values[0])
        case 1: return emitter.floats(values, shape: [values.count, 1, 1])
        case 3:
            let expected = try count(dims, "the shape of \(name)")
            guard expected == values.count else { throw LayerSpecificationError("\(name) holds \(values.count) values; its shape \(shape) needs \(expected)") }
            return emitter.floats(values, shape: dims)
        default: throw LayerSpecificationError("the shape of \(name) \(shape) must be [1], [C] or [C, H, W]")
        }
    }

    mutating func scale(_ p: CoreML_Specification_ScaleLayerParams, _ x: Value) throws -> Value {
        let scale = try classicParameter(try weights(p.scale, "scale"), declared: p.shapeScale, "scale")
        var y = op("mul", ["x": x.name, "y": scale])
        if p.hasBias_p {
            y = op("add", ["x": y, "y": try classicParameter(try weights(p.bias, "bias"), declared: p.shapeBias, "bias")])
        }
        return Value(name: y, rank: max(x.rank, 3))
    }

    mutating func bias(_ p: CoreML_Specification_BiasLayerParams, _ x: Value) throws -> Value {
        let bias = try classicParameter(try weights(p.bias, "bias"), declared: p.shape, "bias")
        return Value(name: op("add", ["x": x.name, "y": bias]), rank: max(x.rank, 3))
    }

    mutating func loadConstant(_ p: CoreML_Specification_LoadConstantLayerParams) throws -> Value {
        let shape = try declaredSizes(p.shape, "shape")
        guard shape.count == 3 else { throw LayerSpecificationError("shape \(p.shape) must be three sizes [C, H, W]") }
        return Value(name: emitter.floats(try weights(p.data, "data", count: try count(shape, "shape")), shape: shape), rank: 3)
    }

    /// `x` with its last three axes in H, W, C order (for the channel-last modes).
    mutating func channelsLast(_ x: Value) -> String {
        let r = x.rank
        return transpose(x.name, Array(0..<(r - 3)) + [r - 2, r - 1, r - 3])
    }

    mutating func classicReshape(_ p: CoreML_Specification_ReshapeLayerParams, _ x: Value) throws -> Value {
        let target = try declaredSizes(p.targetShape, "targetShape")
        guard target.count == 3 || target.count == 4, !target.contains(0) else {
            throw LayerSpecificationError("targetShape \(p.targetShape) must be 3 ([C, H, W]) or 4 ([Seq, C, H, W]) positive sizes")
        }
        guard x.rank >= 3 || p.mode == .channelFirst else { throw LayerSpecificationError("channel-last reshape needs rank 3 or more") }
        if p.mode == .channelLast {
            // Read in H, W, C order, write in H, W, C order.
            let hwc = target.count == 3 ? [target[1], target[2], target[0]] : [target[0], target[2], target[3], target[1]]
            let flat = reshape(channelsLast(x), keeping: target.count == 3 ? max(0, x.rank - 3) : 0, then: hwc)
            let rank = target.count == 3 ? max(x.rank, 3) : 4
            let y = transpose(flat, Array(0..<(rank - 3)) + [rank - 1, rank - 3, rank - 2])
            return Value(name: y, rank: rank)
        }
        if target.count == 4 { return Value(name: reshape(x.name, keeping: 0, then: target), rank: 4) }
        return Value(name: reshape(x.name, keeping: max(0, x.rank - 3), then: target), rank: max(x.rank, 3))
    }

    mutating func flatten(_ p: CoreML_Specification_FlattenLayerParams, _ x: Value) throws -> Value {
        let keep = max(0, x.rank - 3)
        let source = p.mode == .channelLast && x.rank >= 3 ? channelsLast(x) : x.name
        return Value(name: reshape(source, keeping: keep, then: [-1, 1, 1]), rank: keep + 3)
    }

    /// A permutation of `[Seq, C, H, W]`; a rank-3 input has Seq = 1 (dropped again when it stays first).
    mutating func permute(_ p: CoreML_Specification_PermuteLayerParams, _ x: Value) throws -> Value {
        var axes = try p.classicAxes()
        if axes.count == 3 { axes = [0] + axes.map { $0 + 1 } }
        switch x.rank {
        case 3:
            let y = transpose(expandDims(x.name, [0]), axes)
            return axes[0] == 0 ? Value(name: squeeze(y, [0]), rank: 3) : Value(name: y, rank: 4)
        case 4: return Value(name: transpose(x.name, axes), rank: 4)
        case 5:
            // [Seq, Batch, C, H, W]: the batch stays in place.
            let perm = [axes[0] == 0 ? 0 : axes[0] + 1, 1] + axes.dropFirst().map { $0 == 0 ? 0 : $0 + 1 }
            return Value(name: transpose(x.name, perm), rank: 5)
        default: throw LayerSpecificationError("permute needs rank 3, 4 or 5, not \(x.rank)")
        }
    }

    /// Along C, or along the sequence (rank-3 inputs gaining a sequence axis of 1).
    mutating func classicConcat(_ p: CoreML_Specification_ConcatLayerParams, _ inputs: [Value]) throws -> Value {
        guard !inputs.isEmpty else { throw LayerSpecificationError("concat needs at least one input") }
        if p.sequenceConcat {
            let rank = max(4, inputs.map(\.rank).max()!)
            let values = inputs.map { $0.rank == 3 ? expandDims($0.name, [0]) : $0.name }
            return Value(name: concat(values, axis: -rank + (rank - 4)), rank: rank)
        }
        return Value(name: concat(inputs.map(\.name), axis: -3), rank: inputs.map(\.rank).max()!)
    }
}
