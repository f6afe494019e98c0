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
        case .convolution(let p)?: return [try convolution(p, first())]
        case .pooling(let p)?: return [try pooling(p, first())]
        case .activation(let p)?: return [try activation(p, first())]
        case .innerProduct(let p)?: return [try innerProduct(p, first())]
        case .embedding(let p)?: return [try embedding(p, first())]
        case .batchnorm(let p)?: return [try batchnorm(p, first())]
        case .l2Normalize(let p)?: return [try l2Normalize(p, first())]
        case .softmax?: return [softmax(try first())]
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
