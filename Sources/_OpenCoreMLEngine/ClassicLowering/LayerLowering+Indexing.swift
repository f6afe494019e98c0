import CoreMLSpec

/// Gathers, scatters, one-hot vectors, band masks, non-zero positions, embeddings, image sampling,
/// random values and box suppression.
extension LayerLowering {
    static func scatterMode(_ mode: CoreML_Specification_ScatterMode) throws -> String {
        switch mode {
        case .scatterUpdate: return "update"
        case .scatterAdd: return "add"
        case .scatterSub: return "sub"
        case .scatterMul: return "mul"
        case .scatterDiv: return "div"
        case .scatterMax: return "max"
        case .scatterMin: return "min"
        case .UNRECOGNIZED(let value): throw LayerSpecificationError("unknown scatter mode \(value)")
        }
    }

    func two(_ inputs: [Value], _ what: String) throws -> (Value, Value) {
        guard inputs.count == 2 else { throw LayerSpecificationError("\(what) takes 2 inputs, not \(inputs.count)") }
        return (inputs[0], inputs[1])
    }

    func three(_ inputs: [Value], _ what: String) throws -> (Value, Value, Value) {
        guard inputs.count == 3 else { throw LayerSpecificationError("\(what) takes 3 inputs, not \(inputs.count)") }
        return (inputs[0], inputs[1], inputs[2])
    }

    mutating func gather(_ p: CoreML_Specification_GatherLayerParams, _ inputs: [Value]) throws -> Value {
        let (x, indices) = try two(inputs, "gather")
        let y = op("gather", ["x": x.name, "indices": indices.name, "axis": emitter.int(Int(p.axis))])
        return atLeastOneDimension(Value(name: y, rank: x.rank < 0 || indices.rank < 0 ? Self.unknownRank : x.rank - 1 + indices.rank))
    }

    /// `scatter`, `scatter_nd` or `scatter_along_axis`. `scatter`'s indices may have any rank (its
    /// updates then have the indices' dimensions in place of the axis): they are flattened, as MIL
    /// takes one dimension of indices.
    mutating func scatter(_ type: String, axis: Int64?, mode: CoreML_Specification_ScatterMode, _ inputs: [Value]) throws -> Value {
        let (data, indices, updates) = try three(inputs, type)
        var (indexValues, updateValues) = (indices.name, updates.name)
        if type == "scatter", let axis, indices.rank != 1 {
            guard data.rank > 0 else { throw LayerSpecificationError("the data's rank must be known to scatter with indices of rank \(indices.rank)") }
            let d = try resolved(Int(axis), rank: data.rank)
            indexValues = reshape(indices.name, keeping: 0, then: [-1])
            let leading = dimensions(of: data.name, from: 0, to: d), trailing = dimensions(of: data.name, from: d + 1, to: data.rank)
            updateValues = op("reshape", ["x": updates.name, "shape": concat([leading, emitter.ints([-1]), trailing], axis: 0)])
        }
        var arguments = ["data": data.name, "indices": indexValues, "updates": updateValues, "mode": emitter.string(try Self.scatterMode(mode))]
        if let axis { arguments["axis"] = emitter.int(Int(axis)) }
        return Value(name: op(type, arguments), rank: data.rank)
    }

    mutating func oneHot(_ p: CoreML_Specification_OneHotLayerParams, _ inputs: [Value]) throws -> Value {
        guard let indices = inputs.first else { throw LayerSpecificationError("oneHot needs its indices") }
        let size = inputs.count > 1 ? reshape(inputs[1].name, keeping: 0, then: []) : emitter.int(try declared(p.oneHotVectorSize, "oneHotVectorSize"))
        let y = op("one_hot", [
            "indices": indices.name, "one_hot_vector_size": size, "axis": emitter.int(Int(p.axis)),
            "on_value": emitter.float(p.onValue), "off_value": emitter.float(p.offValue),
        ])
        return Value(name: y, rank: indices.rank + 1)
    }

    /// Keeps the band `numLower` below and `numUpper` above the diagonal (negative: all) of the last
    /// two axes.
    mutating func bandPart(_ x: Value, lower: Int, upper: Int) -> String {
        op("band_part", ["x": x.name, "lower": emitter.int(lower), "upper": emitter.int(upper)])
    }

    /// The values on and below diagonal `k` (above it for the upper triangle); the rest 0.
    mutating func triangle(_ x: Value, k: Int, lower: Bool) -> Value {
        let y: String
        if lower {
            y = k >= 0 ? bandPart(x, lower: -1, upper: k) : op("sub", ["x": x.name, "y": bandPart(x, lower: -k - 1, upper: -1)])
        } else {
            y = k <= 0 ? bandPart(x, lower: -k, upper: -1) : op("sub", ["x": x.name, "y": bandPart(x, lower: -1, upper: k - 1)])
        }
        return Value(name: y, rank: x.rank)
    }

    /// Indices `[…, 1]` to rows of the table (`[…, embeddingSize]`); the table is stored
    /// `[embeddingSize, vocabSize]`.
    mutating func embeddingND(_ p: CoreML_Specification_EmbeddingNDLayerParams, _ x: Value) throws -> Value {
        let vocabulary = try declared(p.vocabSize, "vocabSize"), size = try declared(p.embeddingSize, "embeddingSize")
        let stored = try weights(p.weights, "weights", count: vocabulary * size)
        var table = [Float](repeating: 0, count: stored.count)
        for e in 0..<size { for v in 0..<vocabulary { table[v * size + e] = stored[e * vocabulary + v] } }
        let indices = x.rank >= 2 ? squeeze(x.name, [-1]) : x.name
        var y = op("gather", ["x": emitter.floats(table, shape: [vocabulary, size]), "indices": indices, "axis": emitter.int(0)])
        if p.hasBias_p { y = op("add", ["x": y, "y": emitter.floats(try weights(p.bias, "bias", count: size), shape: [size])]) }
        return Value(name: y, rank: max(x.rank, 2))
    }

    static func samplingMode(_ mode: CoreML_Specification_SamplingMode) throws -> String {
        switch mode.samplingMethod {
        case .strictAlignEndpointsMode: return "STRICT_ALIGN_CORNERS"
        case .alignEndpointsMode: return "ALIGN_CORNERS"
        case .upsampleMode: return "DEFAULT"
        case .roiAlignMode: return "OFFSET_CORNERS"
        case .UNRECOGNIZED(let value): throw LayerSpecificationError("unknown sampling method \(value)")
        }
    }

    mutating func resizeBilinear(_ p: CoreML_Specification_ResizeBilinearLayerParams, _ x: Value) throws -> Value {
        let size = try declaredSizes(p.targetSize, "targetSize")
        guard size.count == 2, size.allSatisfy({ $0 > 0 }) else { throw LayerSpecificationError("targetSize \(p.targetSize) must be two positive sizes [H, W]") }
        let y = op("resize_bilinear", [
            "x": x.name, "target_size_height": emitter.int(size[0]), "target_size_width": emitter.int(size[1]),
            "sampling_mode": emitter.string(try Self.samplingMode(p.mode)),
        ])
        return Value(name: y, rank: x.rank)
    }

    /// Crops the boxes of the second input (`[N, 1, 4 or 5, 1, 1]`) out of the first
    /// (`[1, B, C, H, W]`, or `[B, C, H, W]`) and resizes each to `targetSize`: `[N, B, C, h, w]`.
    mutating func cropResize(_ p: CoreML_Specification_CropResizeLayerParams, _ inputs: [Value]) throws -> Value {
        let (x, boxes) = try two(inputs, "cropResize")
        let size = try declaredSizes(p.targetSize, "targetSize")
        guard size.count == 2 else { throw LayerSpecificationError("targetSize \(p.targetSize) must be [H, W]") }
        let mode: String
        switch p.boxIndicesMode.boxMode {
        case .cornersHeightFirst: mode = "CORNERS_HEIGHT_FIRST"
        case .cornersWidthFirst: mode = "CORNERS_WIDTH_FIRST"
        case .centerSizeHeightFirst: mode = "CENTER_SIZE_HEIGHT_FIRST"
        case .centerSizeWidthFirst: mode = "CENTER_SIZE_WIDTH_FIRST"
        case .UNRECOGNIZED(let value): throw LayerSpecificationError("unknown box coordinate mode \(value)")
        }
        let image = x.rank == 5 ? squeeze(x.name, [0]) : x.name
        let y = op("crop_resize", [
            "x": image, "roi": boxes.name, "target_height": emitter.int(size[0]), "target_width": emitter.int(size[1]),
            "normalized_coordinates": emitter.bool(p.normalizedCoordinates), "spatial_scale": emitter.float(p.spatialScale == 0 ? 1 : p.spatialScale),
            "box_coordinate_mode": emitter.string(mode), "sampling_mode": emitter.string(try Self.samplingMode(p.mode)),
        ])
        return Value(name: y, rank: 5)
    }

    /// Random values of `shape` (a run-time shape vector) by `type` and its `parameters`, from `seed`.
    mutating func random(_ type: String, shape: String, rank: Int, seed: Int64, _ parameters: [String: Float]) -> Value {
        var inputs = ["shape": shape, "seed": emitter.int(Int(clamping: seed))]
        for (name, value) in parameters { inputs[name] = emitter.float(value) }
        return Value(name: op(type, inputs), rank: rank)
    }

    mutating func categoricalDistribution(_ p: CoreML_Specification_CategoricalDistributionLayerParams, _ x: Value) throws -> Value {
        var logits = x.name
        if p.temperature != 0 && p.temperature != 1 {
            logits = op("real_div", ["x": logits, "y": emitter.float(p.temperature)])
        }
        let y = op("random_categorical", [
            "x": logits, "mode": emitter.string(p.isLogits ? "logits" : "probs"),
            "size": emitter.int(max(1, Int(clamping: p.numSamples))), "seed": emitter.int(Int(clamping: p.seed)),
        ])
        return Value(name: y, rank: x.rank)
    }

    /// Boxes `[B, N, 4]` and scores `[B, N, C]`; thresholds and the box count from the parameters or
    /// from inputs 3–5. Outputs the kept boxes, their scores, indices and count.
    mutating func nonMaximumSuppression(_ p: CoreML_Specification_NonMaximumSuppressionLayerParams, _ inputs: [Value]) throws -> [Value] {
        guard inputs.count >= 2 else { throw LayerSpecificationError("NonMaximumSuppression takes the boxes and the scores") }
        func scalar(_ index: Int, _ fallback: String) -> String {
            inputs.count > index ? reshape(inputs[index].name, keeping: 0, then: []) : fallback
        }
        let arguments = [
            "boxes": inputs[0].name, "scores": inputs[1].name,
            "iou_threshold": scalar(2, emitter.float(p.iouThreshold)), "score_threshold": scalar(3, emitter.float(p.scoreThreshold)),
            "max_boxes": scalar(4, emitter.int(max(1, Int(clamping: p.maxBoxes)))), "per_class_suppression": emitter.bool(p.perClassSuppression),
        ]
        let names = (0..<4).map { _ in emitter.name("nms") }
        emitter.operation("non_maximum_suppression", arguments.mapValues { [$0] }, outputs: names)
        return [Value(name: names[0], rank: 3), Value(name: names[1], rank: 3), Value(name: names[2], rank: 2), Value(name: names[3], rank: 1)]
    }
}
