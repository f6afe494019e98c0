import CoreMLSpec

extension LayerLowering {
    /// The values of `layer`'s outputs, written as MIL operations over its inputs' values: one rule
    /// per layer type of the schema (the switch has no `default`, so a type the schema gains is a
    /// compile-time error here until it has a rule).
    mutating func rule(for layer: CoreML_Specification_NeuralNetworkLayer, _ inputs: [Value]) throws -> [Value] {
        func first() throws -> Value {
            guard let x = inputs.first else { throw LayerSpecificationError("the layer needs an input") }
            return x
        }
        switch layer.layer {
        case .convolution(let p)?: return [try convolution(p, first(), weight: inputs.count > 1 ? inputs[1] : nil)]
        case .pooling(let p)?: return [try pooling(p, first())]
        case .activation(let p)?: return [try activation(p, first())]
        case .innerProduct(let p)?: return [try innerProduct(p, first())]
        case .embedding(let p)?: return [try embedding(p, first())]
        case .batchnorm(let p)?: return [try batchnorm(p, first())]
        case .l2Normalize(let p)?: return [try l2Normalize(p, first())]
        case .softmax?: return [try softmax(first())]
        case .padding(let p)?: return [try padding(p, first())]
        case .upsample(let p)?: return [try upsample(p, first())]
        case .unary(let p)?: return [try unary(p, first())]
        case .add(let p)?: return [try sumOrProduct("add", alpha: p.alpha, inputs)]
        case .multiply(let p)?: return [try sumOrProduct("mul", alpha: p.alpha, inputs)]
        case .scale(let p)?: return [try scale(p, first())]
        case .bias(let p)?: return [try bias(p, first())]
        case .loadConstant(let p)?: return [try loadConstant(p)]
        case .reshape(let p)?: return [try classicReshape(p, first())]
        case .flatten(let p)?: return [try flatten(p, first())]
        case .permute(let p)?: return [try permute(p, first())]
        case .concat(let p)?: return [try classicConcat(p, inputs)]
        case .uniDirectionalLstm(let p)?: return try lstm(p, inputs)
        case .clip(let p)?:
            let x = try first()
            return [Value(name: op("clip", ["x": x.name, "alpha": emitter.float(p.minVal), "beta": emitter.float(p.maxVal)]), rank: x.rank)]
        case .softmaxNd(let p)?:
            let x = try first()
            return [Value(name: op("softmax", ["x": x.name, "axis": emitter.int(Int(p.axis))]), rank: x.rank)]
        case .concatNd(let p)?:
            guard let rank = inputs.map(\.rank).max() else { throw LayerSpecificationError("concatND needs at least one input") }
            return [Value(name: concat(inputs.map(\.name), axis: Int(p.axis), interleave: p.interleave), rank: rank)]
        case .batchedMatmul(let p)?: return [try batchedMatmul(p, inputs)]
        case .flattenTo2D(let p)?:
            return [Value(name: op("flatten2d", ["x": try first().name, "axis": emitter.int(Int(p.axis))]), rank: 2)]
        case .reshapeStatic(let p)?:
            let target = p.targetShape.map { Int(clamping: $0) }
            return [Value(name: reshape(try first().name, keeping: 0, then: target), rank: target.count)]
        case .mvn(let p)?: return [try meanVarianceNormalize(p, first())]
        case .lrn(let p)?: return [try localResponseNorm(p, first())]
        case .crop(let p)?: return [try crop(p, inputs)]
        case .resizeBilinear(let p)?: return [try resizeBilinear(p, first())]
        case .cropResize(let p)?: return [try cropResize(p, inputs)]
        case .average?: return [try average(inputs)]
        case .max?: return [try many("maximum", inputs)]
        case .min?: return [try many("minimum", inputs)]
        case .dot(let p)?: return [try dot(p, inputs)]
        case .reduce(let p)?: return [try classicReduce(p, first())]
        case .split(let p)?: return try classicSplit(p, first(), outputs: layer.output.count)
        case .sequenceRepeat(let p)?: return [try sequenceRepeat(p, first())]
        case .reorganizeData(let p)?: return [try reorganizeData(p, first())]
        case .slice(let p)?: return [try classicSlice(p, first())]
        case .simpleRecurrent(let p)?: return try simpleRecurrent(p, inputs)
        case .gru(let p)?: return try gru(p, inputs)
        case .biDirectionalLstm(let p)?: return try biDirectionalLSTM(p, inputs)
        case .custom?: return try custom(layer, inputs)
        case .copy?: return [try first()]
        case .branch(let p)?: try branch(p, first()); return []
        case .loop(let p)?: try loop(p, inputs, blobsWritten: layer.blobsWritten); return []
        case .loopBreak?, .loopContinue?:
            throw LayerSpecificationError("a \(layer.layerTypeName) layer must be inside a loop layer's bodyNetwork")
        case .rangeStatic(let p)?:
            return [range(end: emitter.float(p.endValue), start: emitter.float(p.startValue), step: emitter.float(p.stepSizeValue))]
        case .rangeDynamic(let p)?: return [try rangeDynamic(p, inputs)]
        case .ceil?: return [function("ceil", try first())]
        case .floor?: return [function("floor", try first())]
        case .sign?: return [function("sign", try first())]
        case .round?: return [function("round", try first())]
        case .exp2?: return [function("exp2", try first())]
        case .sin?: return [function("sin", try first())]
        case .cos?: return [function("cos", try first())]
        case .tan?: return [function("tan", try first())]
        case .asin?: return [function("asin", try first())]
        case .acos?: return [function("acos", try first())]
        case .atan?: return [function("atan", try first())]
        case .sinh?: return [function("sinh", try first())]
        case .cosh?: return [function("cosh", try first())]
        case .tanh?: return [function("tanh", try first())]
        case .asinh?: return [inverseHyperbolic(try first(), plus: true)]
        case .acosh?: return [inverseHyperbolic(try first(), plus: false)]
        case .atanh?: return [function("atanh", try first())]
        case .erf?: return [function("erf", try first())]
        case .gelu(let p)?: return [try gelu(p, first())]
        case .equal(let p)?: return [try comparison("equal", alpha: p.alpha, inputs)]
        case .notEqual(let p)?: return [try comparison("not_equal", alpha: p.alpha, inputs)]
        case .lessThan(let p)?: return [try comparison("less", alpha: p.alpha, inputs)]
        case .lessEqual(let p)?: return [try comparison("less_equal", alpha: p.alpha, inputs)]
        case .greaterThan(let p)?: return [try comparison("greater", alpha: p.alpha, inputs)]
        case .greaterEqual(let p)?: return [try comparison("greater_equal", alpha: p.alpha, inputs)]
        case .logicalOr?: return [try binary("logical_or", inputs)]
        case .logicalXor?: return [try binary("logical_xor", inputs)]
        case .logicalAnd?: return [try binary("logical_and", inputs)]
        case .logicalNot?: return [function("logical_not", try first())]
        case .modBroadcastable?: return [try binary("mod", inputs)]
        case .minBroadcastable?: return [try many("minimum", inputs)]
        case .maxBroadcastable?: return [try many("maximum", inputs)]
        case .addBroadcastable?: return [try many("add", inputs)]
        case .powBroadcastable?: return [try binary("pow", inputs)]
        case .divideBroadcastable?: return [try binary("real_div", inputs)]
        case .floorDivBroadcastable?: return [try binary("floor_div", inputs)]
        case .multiplyBroadcastable?: return [try many("mul", inputs)]
        case .subtractBroadcastable?: return [try binary("sub", inputs)]
        case .tile(let p)?: return [try tile(p, inputs)]
        case .stack(let p)?:
            let output = emitter.name("stack")
            emitter.operation("stack", ["values": inputs.map(\.name), "axis": [emitter.int(Int(p.axis))]], outputs: [output])
            return [Value(name: output, rank: (inputs.first?.rank ?? 0) + 1)]
        case .gather(let p)?: return [try gather(p, inputs)]
        case .scatter(let p)?: return [try scatter("scatter", axis: p.axis, mode: p.mode, inputs)]
        case .gatherNd?:
            let (x, indices) = try two(inputs, "gatherND")
            return [atLeastOneDimension(Value(name: op("gather_nd", ["x": x.name, "indices": indices.name]), rank: Self.unknownRank))]
        case .scatterNd(let p)?: return [try scatter("scatter_nd", axis: nil, mode: p.mode, inputs)]
        case .gatherAlongAxis(let p)?:
            let (x, indices) = try two(inputs, "gatherAlongAxis")
            return [Value(name: op("gather_along_axis", ["x": x.name, "indices": indices.name, "axis": emitter.int(Int(p.axis))]), rank: x.rank)]
        case .scatterAlongAxis(let p)?: return [try scatter("scatter_along_axis", axis: p.axis, mode: p.mode, inputs)]
        case .reverse(let p)?: return [reverse(p, try first())]
        case .reverseSeq(let p)?: return [try reverseSequence(p, inputs)]
        case .splitNd(let p)?: return try splitND(p, first(), outputs: layer.output.count)
        case .transpose(let p)?:
            let x = try first()
            var axes = p.axes.map { Int(clamping: $0) }
            // Fewer axes than the input has permute its last ones: what coremltools writes for an image
            // under RANK4_IMAGE_MAPPING ([1, C, H, W]) made from an H×W×C array (`make_image_input`).
            if x.rank != Self.unknownRank, axes.count < x.rank, Set(axes) == Set(0..<axes.count) {
                let leading = x.rank - axes.count
                axes = Array(0..<leading) + axes.map { $0 + leading }
            }
            return [Value(name: transpose(x.name, axes), rank: x.rank)]
        case .sliceStatic(let p)?: return [try sliceStatic(p, first())]
        case .sliceDynamic(let p)?: return [try sliceDynamic(p, inputs)]
        case .slidingWindows(let p)?: return [try slidingWindows(p, first())]
        case .topK(let p)?: return try topK(p, inputs)
        case .argMin(let p)?: return [argIndex("reduce_argmin", axis: p.axis, removeDim: p.removeDim, try first())]
        case .argMax(let p)?: return [argIndex("reduce_argmax", axis: p.axis, removeDim: p.removeDim, try first())]
        case .embeddingNd(let p)?: return [try embeddingND(p, first())]
        case .getShape?: return [Value(name: op("shape", ["x": try first().name]), rank: 1)]
        case .loadConstantNd(let p)?:
            let shape = try declaredSizes(p.shape, "shape")
            return [Value(name: emitter.floats(try weights(p.data, "data", count: try count(shape, "shape")), shape: shape), rank: shape.count)]
        case .fillLike(let p)?:
            let x = try first()
            return [Value(name: op("fill_like", ["ref_tensor": x.name, "value": emitter.float(p.value)]), rank: x.rank)]
        case .fillStatic(let p)?:
            let shape = try declaredSizes(p.targetShape, "targetShape")
            return [fill(shape: emitter.ints(shape), value: p.value, rank: shape.count)]
        case .fillDynamic(let p)?: return [fill(shape: try first().name, value: p.value, rank: Self.unknownRank)]
        case .broadcastToLike?:
            let (x, reference) = try two(inputs, "broadcastToLike")
            return [broadcast(x, to: op("shape", ["x": reference.name]), rank: reference.rank)]
        case .broadcastToStatic(let p)?:
            let shape = try declaredSizes(p.targetShape, "targetShape")
            return [broadcast(try first(), to: emitter.ints(shape), rank: shape.count)]
        case .broadcastToDynamic?:
            let (x, shape) = try two(inputs, "broadcastToDynamic")
            return [broadcast(x, to: shape.name, rank: Self.unknownRank)]
        case .squeeze(let p)?: return [squeezeLayer(p, try first())]
        case .expandDims(let p)?: return [expandDimsLayer(p, try first())]
        case .reshapeLike?:
            let (x, reference) = try two(inputs, "reshapeLike")
            return [Value(name: op("reshape", ["x": x.name, "shape": op("shape", ["x": reference.name])]), rank: reference.rank)]
        case .reshapeDynamic?:
            let (x, shape) = try two(inputs, "reshapeDynamic")
            return [Value(name: op("reshape", ["x": x.name, "shape": shape.name]), rank: Self.unknownRank)]
        case .rankPreservingReshape(let p)?: return [rankPreservingReshape(p, try first())]
        case .constantPad(let p)?: return [try constantPad(p, first())]
        case .randomNormalLike(let p)?:
            let x = try first()
            return [random("random_normal", shape: op("shape", ["x": x.name]), rank: x.rank, seed: p.seed, ["mean": p.mean, "stddev": p.stdDev])]
        case .randomNormalStatic(let p)?:
            let shape = try declaredSizes(p.outputShape, "outputShape")
            return [random("random_normal", shape: emitter.ints(shape), rank: shape.count, seed: p.seed, ["mean": p.mean, "stddev": p.stdDev])]
        case .randomNormalDynamic(let p)?:
            return [random("random_normal", shape: try first().name, rank: Self.unknownRank, seed: p.seed, ["mean": p.mean, "stddev": p.stdDev])]
        case .randomUniformLike(let p)?:
            let x = try first()
            return [random("random_uniform", shape: op("shape", ["x": x.name]), rank: x.rank, seed: p.seed, ["low": p.minVal, "high": p.maxVal])]
        case .randomUniformStatic(let p)?:
            let shape = try declaredSizes(p.outputShape, "outputShape")
            return [random("random_uniform", shape: emitter.ints(shape), rank: shape.count, seed: p.seed, ["low": p.minVal, "high": p.maxVal])]
        case .randomUniformDynamic(let p)?:
            return [random("random_uniform", shape: try first().name, rank: Self.unknownRank, seed: p.seed, ["low": p.minVal, "high": p.maxVal])]
        case .randomBernoulliLike(let p)?:
            let x = try first()
            return [random("random_bernoulli", shape: op("shape", ["x": x.name]), rank: x.rank, seed: p.seed, ["prob": p.prob])]
        case .randomBernoulliStatic(let p)?:
            let shape = try declaredSizes(p.outputShape, "outputShape")
            return [random("random_bernoulli", shape: emitter.ints(shape), rank: shape.count, seed: p.seed, ["prob": p.prob])]
        case .randomBernoulliDynamic(let p)?:
            return [random("random_bernoulli", shape: try first().name, rank: Self.unknownRank, seed: p.seed, ["prob": p.prob])]
        case .categoricalDistribution(let p)?: return [try categoricalDistribution(p, first())]
        case .reduceL1(let p)?: return [reduction("reduce_l1_norm", axes: p.axes, keepDims: p.keepDims, reduceAll: p.reduceAll, try first())]
        case .reduceL2(let p)?: return [reduction("reduce_l2_norm", axes: p.axes, keepDims: p.keepDims, reduceAll: p.reduceAll, try first())]
        case .reduceMax(let p)?: return [reduction("reduce_max", axes: p.axes, keepDims: p.keepDims, reduceAll: p.reduceAll, try first())]
        case .reduceMin(let p)?: return [reduction("reduce_min", axes: p.axes, keepDims: p.keepDims, reduceAll: p.reduceAll, try first())]
        case .reduceSum(let p)?: return [reduction("reduce_sum", axes: p.axes, keepDims: p.keepDims, reduceAll: p.reduceAll, try first())]
        case .reduceProd(let p)?: return [reduction("reduce_prod", axes: p.axes, keepDims: p.keepDims, reduceAll: p.reduceAll, try first())]
        case .reduceMean(let p)?: return [reduction("reduce_mean", axes: p.axes, keepDims: p.keepDims, reduceAll: p.reduceAll, try first())]
        case .reduceLogSum(let p)?: return [reduction("reduce_log_sum", axes: p.axes, keepDims: p.keepDims, reduceAll: p.reduceAll, try first())]
        case .reduceSumSquare(let p)?:
            return [reduction("reduce_sum_square", axes: p.axes, keepDims: p.keepDims, reduceAll: p.reduceAll, try first())]
        case .reduceLogSumExp(let p)?:
            return [reduction("reduce_log_sum_exp", axes: p.axes, keepDims: p.keepDims, reduceAll: p.reduceAll, try first())]
        case .whereNonZero?: return [Value(name: op("non_zero", ["x": try first().name]), rank: 2)]
        case .matrixBandPart(let p)?:
            let x = try first()
            return [Value(name: bandPart(x, lower: Int(clamping: p.numLower), upper: Int(clamping: p.numUpper)), rank: x.rank)]
        case .lowerTriangular(let p)?: return [triangle(try first(), k: Int(max(-(1 << 30), min(1 << 30, p.k))), lower: true)]
        case .upperTriangular(let p)?: return [triangle(try first(), k: Int(max(-(1 << 30), min(1 << 30, p.k))), lower: false)]
        case .whereBroadcastable?: return [try whereBroadcastable(inputs)]
        case .layerNormalization(let p)?: return [try layerNormalization(p, first())]
        case .nonMaximumSuppression(let p)?: return try nonMaximumSuppression(p, inputs)
        case .oneHot(let p)?: return [try oneHot(p, inputs)]
        case .cumSum(let p)?: return [try cumSum(p, inputs)]
        case .clampedReLu(let p)?:
            let x = try first()
            return [Value(name: op("clamped_relu", ["x": x.name, "alpha": emitter.float(p.alpha), "beta": emitter.float(p.beta)]), rank: x.rank)]
        case .argSort(let p)?: return [argSort(p, try first())]
        case .globalPooling3D(let p)?:
            let x = try first()
            let type = p.type == .max ? "reduce_max" : "reduce_mean"
            return [Value(name: op(type, ["x": x.name, "axes": emitter.ints([-3, -2, -1]), "keep_dims": emitter.bool(true)]), rank: x.rank)]
        case .sliceBySize(let p)?: return [try sliceBySize(p, inputs)]
        case .pooling3D(let p)?: return [try pooling3D(p, first())]
        case .convolution3D(let p)?: return [try convolution3D(p, first())]
        case nil: throw LayerSpecificationError("\(layer.layerTypeName) layers are not supported by OpenCoreML yet")
        }
    }

    /// Two inputs: `op(A) · op(B)` with broadcast leading dimensions. One input: `x · W + b`, `W`
    /// `[X1, X2]` stored as the rows of its transpose.
    mutating func batchedMatmul(_ p: CoreML_Specification_BatchedMatMulLayerParams, _ inputs: [Value]) throws -> Value {
        if inputs.count >= 2 {
            let (a, b) = (inputs[0], inputs[1])
            let y = op("matmul", ["x": a.name, "y": b.name, "transpose_x": emitter.bool(p.transposeA), "transpose_y": emitter.bool(p.transposeB)])
            return Value(name: y, rank: max(2, a.rank, b.rank))
        }
        guard let x = inputs.first else { throw LayerSpecificationError("batchedMatmul needs an input") }
        let rows = try declared(p.weightMatrixFirstDimension, "weightMatrixFirstDimension")
        let columns = try declared(p.weightMatrixSecondDimension, "weightMatrixSecondDimension")
        var arguments = ["x": x.name, "weight": emitter.floats(try weights(p.weights, "weights", count: rows * columns), shape: [columns, rows])]
        if p.hasBias_p { arguments["bias"] = emitter.floats(try weights(p.bias, "bias", count: columns), shape: [columns]) }
        return Value(name: op("linear", arguments), rank: x.rank)
    }
}
