import CoreMLSpec

/// The 3-D layers of iOS 14 (`convolution3d`, `pooling3d`) over rank-5 `[N, C, D, H, W]` blobs, as
/// MIL's `conv`, `conv_transpose`, `max_pool` and `avg_pool` with three spatial axes.
extension LayerLowering {
    mutating func convolution3D(_ p: CoreML_Specification_Convolution3DLayerParams, _ x: Value) throws -> Value {
        try requireRank5(x)
        let outputChannels = try declared(p.outputChannels, "outputChannels"), inputChannels = try declared(p.inputChannels, "inputChannels")
        let groups = max(1, try declared(p.nGroups, "nGroups"))
        guard outputChannels > 0, inputChannels > 0, outputChannels % groups == 0, inputChannels % groups == 0 else {
            throw LayerSpecificationError("inputChannels (\(inputChannels)) and outputChannels (\(outputChannels)) must be positive multiples of nGroups (\(groups))")
        }
        let kernel = try positive([p.kernelDepth, p.kernelHeight, p.kernelWidth], "kernelDepth/Height/Width")
        let stride = try positive([p.strideDepth, p.strideHeight, p.strideWidth], "strideDepth/Height/Width")
        let dilation = try positive([p.dilationDepth, p.dilationHeight, p.dilationWidth], "dilationDepth/Height/Width")
        let shape = p.isDeconvolution ? [inputChannels, outputChannels / groups] + kernel : [outputChannels, inputChannels / groups] + kernel
        let values = try weights(p.weights, "weights", count: try count(shape, "weights"))
        let padding = try Self.padding3D(p.paddingType == .valid ? .valid : p.paddingType == .same ? .same : .custom,
                                         [p.customPaddingFront, p.customPaddingBack, p.customPaddingTop, p.customPaddingBottom,
                                          p.customPaddingLeft, p.customPaddingRight])
        var inputs = [
            "x": x.name, "weight": emitter.floats(values, shape: shape), "strides": emitter.ints(stride), "dilations": emitter.ints(dilation),
            "pad_type": emitter.string(padding.type), "pad": emitter.ints(padding.pad), "groups": emitter.int(groups),
        ]
        if p.hasBias_p { inputs["bias"] = emitter.floats(try weights(p.bias, "bias", count: outputChannels), shape: [outputChannels]) }
        if p.isDeconvolution, !p.outputShape.isEmpty {
            let sizes = try declaredSizes(p.outputShape, "outputShape")
            guard sizes.count == 3 || sizes.count == 5 else { throw LayerSpecificationError("outputShape \(p.outputShape) must be [D, H, W]") }
            inputs["output_shape"] = emitter.ints([1, outputChannels] + sizes.suffix(3))
        }
        return Value(name: op(p.isDeconvolution ? "conv_transpose" : "conv", inputs), rank: 5)
    }

    mutating func pooling3D(_ p: CoreML_Specification_Pooling3DLayerParams, _ x: Value) throws -> Value {
        try requireRank5(x)
        let kernel = try positive([p.kernelDepth, p.kernelHeight, p.kernelWidth], "kernelDepth/Height/Width")
        let stride = try positive([p.strideDepth, p.strideHeight, p.strideWidth], "strideDepth/Height/Width")
        let padding = try Self.padding3D(p.paddingType == .valid ? .valid : p.paddingType == .same ? .same : .custom,
                                         [p.customPaddingFront, p.customPaddingBack, p.customPaddingTop, p.customPaddingBottom,
                                          p.customPaddingLeft, p.customPaddingRight])
        var inputs = [
            "x": x.name, "kernel_sizes": emitter.ints(kernel), "strides": emitter.ints(stride),
            "pad_type": emitter.string(padding.type), "pad": emitter.ints(padding.pad),
        ]
        switch p.type {
        case .max: return Value(name: op("max_pool", inputs), rank: 5)
        case .average:
            inputs["exclude_padding_from_average"] = emitter.bool(p.countExcludePadding)
            return Value(name: op("avg_pool", inputs), rank: 5)
        case .UNRECOGNIZED(let value): throw LayerSpecificationError("unknown pooling type \(value)")
        }
    }

    private func requireRank5(_ x: Value) throws {
        guard x.rank == 5 || x.rank == Self.unknownRank else {
            throw LayerSpecificationError("3-D layers take a rank-5 input [N, C, D, H, W], not rank \(x.rank)")
        }
    }

    private func positive(_ values: [Int32], _ what: String) throws -> [Int] {
        guard values.allSatisfy({ $0 > 0 }) else { throw LayerSpecificationError("\(what) \(values) must be positive") }
        return values.map(Int.init)
    }

    enum Padding3D { case custom, valid, same }

    /// MIL's `pad_type` and `pad` (before and after depth, height, width) for a 3-D layer's padding.
    static func padding3D(_ type: Padding3D, _ custom: [Int32]) throws -> (type: String, pad: [Int]) {
        switch type {
        case .valid: return ("valid", [0, 0, 0, 0, 0, 0])
        case .same: return ("same", [0, 0, 0, 0, 0, 0])
        case .custom:
            guard custom.allSatisfy({ $0 >= 0 }) else { throw LayerSpecificationError("custom padding \(custom) must not be negative") }
            return ("custom", custom.map(Int.init))
        }
    }
}
