extension CoreML_Specification_NeuralNetworkLayer {
    /// The shapes of the layer's outputs for one example, given the shapes of its inputs: the
    /// layer table's shape rule for each layer type the schema models. No weight is decoded.
    ///
    /// Shapes are the ones the engine gives its blobs: one example's dimensions, without a batch.
    /// Classic layers (convolution, pooling, innerProduct, …) read the last three dimensions as C,
    /// H and W (missing ones count as 1) and fold the ones before them, the sequence, into one
    /// outer axis. As in Core ML, a classic output keeps its input's rank and leading dimensions
    /// (an exact-mapped `[1, C, H, W]` stays rank 4, so later rank-N axes still point at the same
    /// dimensions). Rank-N layers (softmaxND, concatND, batchedMatmul, …) use the shapes as they
    /// are. `inputShapes` are in the order of `input`; the result has one shape per output the
    /// layer type fills (an LSTM up to three, other layers one).
    ///
    /// `exactMapping` is the network's `arrayInputShapeMapping == EXACT_ARRAY_MAPPING`: then blobs
    /// have their true rank, and the few rules Core ML words by rank (innerProduct's ranks 1–3,
    /// flatten's and embedding's minimum ranks) apply. Under the rank-5 mapping every blob is
    /// Core ML's rank 5 `[Seq, Batch, C, H, W]` seen here without the batch (`[C, H, W]` or
    /// `[Seq, C, H, W]`).
    ///
    /// Throws `LayerSpecificationError` saying why, when the inputs do not fit the layer.
    public func outputShapes(for inputShapes: [[Int]], exactMapping: Bool = false) throws -> [[Int]] {
        if let issue = connectionCountIssues(inputs: inputShapes.count, outputs: output.count).first {
            throw LayerSpecificationError(issue)
        }
        let rule = ShapeRule(layer: self, inputs: inputShapes, exactMapping: exactMapping)
        switch layer {
        case .convolution(let p)?: return [try rule.convolution(p)]
        case .pooling(let p)?: return [try rule.pooling(p)]
        case .activation(let p)?: return [try rule.activation(p)]
        case .innerProduct(let p)?: return [try rule.innerProduct(p)]
        case .embedding(let p)?: return [try rule.embedding(p)]
        case .batchnorm(let p)?: return [try rule.batchnorm(p)]
        case .softmax?: return [try rule.softmax()]
        case .l2Normalize?, .unary?, .clip?: return [try rule.shape(0)]
        case .padding(let p)?: return [try rule.padding(p)]
        case .upsample(let p)?: return [try rule.upsample(p)]
        case .add?, .multiply?: return [try rule.broadcast()]
        case .scale(let p)?: return [try rule.scale(p)]
        case .bias(let p)?: return [try rule.bias(p)]
        case .loadConstant(let p)?: return [try rule.loadConstant(p)]
        case .reshape(let p)?: return [try rule.reshape(p)]
        case .flatten?: return [try rule.flatten()]
        case .permute(let p)?: return [try rule.permute(p)]
        case .concat(let p)?: return [try rule.concat(p)]
        case .uniDirectionalLstm(let p)?: return try rule.lstm(p)
        case .softmaxNd(let p)?: return [try rule.softmaxND(p)]
        case .concatNd(let p)?: return [try rule.concatND(p)]
        case .batchedMatmul(let p)?: return [try rule.batchedMatmul(p)]
        case .flattenTo2D(let p)?: return [try rule.flattenTo2D(p)]
        case .reshapeStatic(let p)?: return [try rule.reshapeStatic(p)]
        case nil: throw LayerSpecificationError("\(layerTypeName) layers are not supported by OpenCoreML yet: the schema does not model them")
        default:
            // The types `connectionCounts` has no counts for (one list, there).
            throw LayerSpecificationError("\(layerTypeName) layers have no static shape rule: the classic engine has no node for them (they predict as an ML Program, whose shapes are worked out as it runs)")
        }
    }
}

/// The shape rule of each layer type, for one layer and its input shapes.
private struct ShapeRule {
    let layer: CoreML_Specification_NeuralNetworkLayer
    let inputs: [[Int]]
    /// Whether blobs have their true rank (EXACT_ARRAY_MAPPING); see `outputShapes(for:exactMapping:)`.
    let exactMapping: Bool

    /// The name of input `index`, as messages quote it.
    func name(_ index: Int) -> String {
        index < layer.input.count ? layer.input[index] : "#\(index + 1)"
    }

    func shape(_ index: Int) throws -> [Int] {
        guard index < inputs.count else { throw LayerSpecificationError("the layer needs an input") }
        return inputs[index]
    }

    func classic(_ index: Int) throws -> ClassicShape { ClassicShape(try shape(index)) }

    /// The product of `values`, or an error when it overflows.
    func product(_ values: [Int]) throws(LayerSpecificationError) -> Int {
        guard let product = checkedProduct(values) else { throw LayerSpecificationError(SizeCheckFailure.product(values, what: "the shape")) }
        return product
    }

    func axis(_ axis: Int64, rank: Int, allowingEnd: Bool = false, of index: Int) throws -> Int {
        guard let resolved = CoreML_Specification_NeuralNetworkLayer.resolvedAxis(axis, rank: rank, allowingEnd: allowingEnd) else {
            throw LayerSpecificationError("axis \(axis) is outside the \(rank) dimensions of input '\(name(index))' (shape \(describe(inputs[index])))")
        }
        return resolved
    }

    func convolution(_ p: CoreML_Specification_ConvolutionLayerParams) throws -> [Int] {
        let x = try classic(0)
        if p.isDeconvolution { return try deconvolution(p, x) }
        let outputChannels = try declared(p.outputChannels, "outputChannels"), kernelChannels = try declared(p.kernelChannels, "kernelChannels")
        let groups = max(1, try declared(p.nGroups, "nGroups"))
        if outputChannels % groups != 0 {
            throw LayerSpecificationError("\(outputChannels) output channels do not split into \(groups) groups")
        }
        guard x.channels == kernelChannels * groups else {
            throw LayerSpecificationError("input '\(name(0))' has \(x.channels) channels, the layer expects \(kernelChannels * groups) (\(kernelChannels) per group × \(groups) groups)")
        }
        guard let geometry = try p.geometry(height: x.height, width: x.width) else {
            let (kernel, _, _) = try p.windowSizes()
            throw LayerSpecificationError("input '\(name(0))' (\(x.height)×\(x.width)) is smaller than the \(kernel.0)×\(kernel.1) kernel")
        }
        return ClassicShape(outer: x.outer, channels: outputChannels, height: geometry.outputHeight, width: geometry.outputWidth).replacing(in: try shape(0))
    }

    /// A deconvolution's weights are `[kernelChannels, outputChannels / nGroups, kH, kW]`, and
    /// `kernelChannels` is the input's channel count.
    func deconvolution(_ p: CoreML_Specification_ConvolutionLayerParams, _ x: ClassicShape) throws -> [Int] {
        let outputChannels = try declared(p.outputChannels, "outputChannels"), kernelChannels = try declared(p.kernelChannels, "kernelChannels")
        let groups = max(1, try declared(p.nGroups, "nGroups"))
        guard outputChannels > 0, outputChannels % groups == 0, kernelChannels % groups == 0 else {
            throw LayerSpecificationError("\(kernelChannels) input and \(outputChannels) output channels do not both split into \(groups) groups")
        }
        guard x.channels == kernelChannels else {
            throw LayerSpecificationError("input '\(name(0))' has \(x.channels) channels, the deconvolution expects kernelChannels (\(kernelChannels))")
        }
        let window = try p.transposedGeometry(height: x.height, width: x.width)
        return ClassicShape(outer: x.outer, channels: outputChannels, height: window.outputHeight, width: window.outputWidth).replacing(in: try shape(0))
    }

    func pooling(_ p: CoreML_Specification_PoolingLayerParams) throws -> [Int] {
        if case .UNRECOGNIZED(let value) = p.type { throw LayerSpecificationError("unknown pooling type \(value)") }
        let x = try classic(0)
        guard let geometry = try p.geometry(height: x.height, width: x.width) else {
            let kernel = try declaredPair(p.kernelSize, "kernelSize", fallback: (3, 3))
            throw LayerSpecificationError("input '\(name(0))' (\(x.height)×\(x.width)) is smaller than the \(kernel.0)×\(kernel.1) window")
        }
        return ClassicShape(outer: x.outer, channels: x.channels, height: geometry.outputHeight, width: geometry.outputWidth).replacing(in: try shape(0))
    }

    func activation(_ p: CoreML_Specification_ActivationParams) throws -> [Int] {
        let dims = try shape(0)
        let channels = ClassicShape(dims).channels
        for blob in layer.weightBlobs {
            let count = layer[keyPath: blob.path].count
            if count != 1 && count != channels {
                throw LayerSpecificationError("\(blob.name) has \(count) values; 1 or one per channel (\(channels)) expected")
            }
        }
        return dims
    }

    /// Core ML's rule: the output has the input's rank. Ranks 1 to 3 (only under the exact mapping)
    /// multiply along the last axis, `(…, C_in)` → `(…, C_out)`; ranks 4 and 5 take the last three
    /// axes as one row of C·H·W = C_in values, `(x1, C, H, W)` → `(x1, C_out, 1, 1)`.
    func innerProduct(_ p: CoreML_Specification_InnerProductLayerParams) throws -> [Int] {
        let dims = try shape(0), x = ClassicShape(dims)
        let inputChannels = try declared(p.inputChannels, "inputChannels")
        let outputChannels = try declared(p.outputChannels, "outputChannels")
        if exactMapping && dims.count <= 3 {
            guard let last = dims.last else { throw LayerSpecificationError("input '\(name(0))' has no dimensions") }
            guard last == inputChannels else {
                throw LayerSpecificationError("input '\(name(0))' has shape \(describe(dims)); its last dimension must be inputChannels (\(inputChannels)) for a rank-\(dims.count) input")
            }
            return dims.dropLast() + [outputChannels]
        }
        let values = try product([x.channels, x.height, x.width])
        guard values == inputChannels else {
            throw LayerSpecificationError("input '\(name(0))' has \(values) values per position (shape \(describe(dims))), the layer expects \(p.inputChannels)")
        }
        return ClassicShape(outer: x.outer, channels: outputChannels, height: 1, width: 1).replacing(in: dims)
    }

    func embedding(_ p: CoreML_Specification_EmbeddingLayerParams) throws -> [Int] {
        let dims = try shape(0), x = ClassicShape(dims)
        guard x.channels == 1, x.height == 1, x.width == 1 else {
            throw LayerSpecificationError("input '\(name(0))' has shape \(describe(dims)); an embedding expects one index per position (C = H = W = 1)")
        }
        // Core ML: rank 4 `(x1, 1, 1, 1)` or 5 `(x1, x2, 1, 1, 1)` under the exact mapping; the
        // output keeps the rank. (Rank 3 is accepted as `[1, 1, 1]`, as under the rank-5 mapping.)
        if exactMapping && dims.count < 3 {
            throw LayerSpecificationError("input '\(name(0))' has shape \(describe(dims)); an embedding needs rank 4 (x1, 1, 1, 1) or 5 (x1, x2, 1, 1, 1) so that its output (…, outputChannels, 1, 1) keeps the input's rank")
        }
        // The leading (sequence) dimensions are kept; the trailing [1, 1, 1] becomes [outputChannels, 1, 1].
        return Array(dims.dropLast(3)) + [try declared(p.outputChannels, "outputChannels"), 1, 1]
    }

    func batchnorm(_ p: CoreML_Specification_BatchnormLayerParams) throws -> [Int] {
        let dims = try shape(0), channels = ClassicShape(dims).channels
        guard UInt64(clamping: channels) == p.channels else {
            throw LayerSpecificationError("input '\(name(0))' has \(channels) channels (shape \(describe(dims))), the layer has \(p.channels)")
        }
        return dims
    }

    func padding(_ p: CoreML_Specification_PaddingLayerParams) throws -> [Int] {
        let dims = try shape(0)
        var x = ClassicShape(dims)
        let amounts = p.paddingAmounts.borderAmounts
        guard amounts.isEmpty || amounts.count == 2 else {
            throw LayerSpecificationError("paddingAmounts has \(amounts.count) edge sizes; 2 (height, width) expected")
        }
        let sizes = try amounts.flatMap { [try declared($0.startEdgeSize, "padding"), try declared($0.endEdgeSize, "padding")] }
        let (top, bottom, left, right) = sizes.count == 4 ? (sizes[0], sizes[1], sizes[2], sizes[3]) : (0, 0, 0, 0)
        if case .reflection? = p.paddingType {
            guard top < x.height, bottom < x.height, left < x.width, right < x.width else {
                throw LayerSpecificationError("reflection padding (top \(top), bottom \(bottom), left \(left), right \(right)) must be smaller than the input's \(x.height)×\(x.width) plane of '\(name(0))'")
            }
        }
        try checkPlane(height: x.height, width: x.width)
        x.height += top + bottom
        x.width += left + right
        return x.replacing(in: dims)
    }

    func upsample(_ p: CoreML_Specification_UpsampleLayerParams) throws -> [Int] {
        let dims = try shape(0)
        var x = ClassicShape(dims)
        let factor = try p.scalingFactors()
        // Doubles past an Int's range have no exact Int: those sizes fail the plane check.
        let outH = Int(exactly: (Double(x.height) * factor.height).rounded(.down)) ?? .max
        let outW = Int(exactly: (Double(x.width) * factor.width).rounded(.down)) ?? .max
        guard outH > 0, outW > 0 else {
            throw LayerSpecificationError("upsampling the \(x.height)×\(x.width) input '\(name(0))' by \(factor.height)×\(factor.width) leaves no output")
        }
        try checkPlane(height: outH, width: outW)
        x.height = outH
        x.width = outW
        return x.replacing(in: dims)
    }

    /// `add` and `multiply`: the per-axis largest input; every axis of every input is 1 or that size.
    func broadcast() throws -> [Int] {
        let shapes = inputs.map(ClassicShape.init)
        guard let first = shapes.first else { throw LayerSpecificationError("\(layer.layerTypeName) needs at least one input") }
        let largest = shapes.dropFirst().reduce(first.array) { result, next in zip(result, next.array).map { max($0, $1) } }
        let target = ClassicShape(outer: largest[0], channels: largest[1], height: largest[2], width: largest[3])
        for (index, shape) in shapes.enumerated() where !zip(shape.array, largest).allSatisfy({ $0 == $1 || $0 == 1 }) {
            let all = inputs.indices.map { "'\(name($0))' \(describe(inputs[$0]))" }.joined(separator: ", ")
            throw LayerSpecificationError("input '\(name(index))' (shape \(describe(inputs[index]))) does not broadcast to \(target) [outer×C×H×W]: every axis must be 1 or the largest size among the inputs (\(all))")
        }
        // Keep the rank of an input that already has the output's size, else the highest rank
        // among the inputs (with the output's sequence part).
        if let index = shapes.firstIndex(of: target) { return inputs[index] }
        let ranked = inputs.filter { $0.count >= 3 && ClassicShape($0).outer == target.outer }
        return ranked.max(by: { $0.count < $1.count }).map(target.replacing(in:)) ?? target.dims
    }

    func scale(_ p: CoreML_Specification_ScaleLayerParams) throws -> [Int] {
        let dims = try shape(0)
        for blob in layer.weightBlobs {
            _ = try parameterShape(blob.name, declared: blob.name == "scale" ? p.shapeScale : p.shapeBias, input: ClassicShape(dims))
        }
        return dims
    }

    func bias(_ p: CoreML_Specification_BiasLayerParams) throws -> [Int] {
        let dims = try shape(0)
        _ = try parameterShape("bias", declared: p.shape, input: ClassicShape(dims))
        return dims
    }

    /// The `[C, H, W]` a scale or bias layer's parameter `blob` has across the input.
    func parameterShape(_ blob: String, declared shape: [UInt64], input: ClassicShape) throws -> [Int] {
        guard let weight = layer.weightBlob(named: blob) else { throw LayerSpecificationError("the layer has no \(blob)") }
        let count: Int
        if case .exactly(let expected) = weight.expectedCount { count = expected } else { count = layer[keyPath: weight.path].count }
        let location = "(input '\(name(0))' has shape \(describe(try self.shape(0))))"
        return try CoreML_Specification_NeuralNetworkLayer.classicParameterShape(declared: shape, count: count, input: input.array)
            .mapError { LayerSpecificationError("\(blob) \($0.message) \(location)") }.get()
    }

    func loadConstant(_ p: CoreML_Specification_LoadConstantLayerParams) throws -> [Int] {
        guard inputs.isEmpty else { throw LayerSpecificationError("loadConstant takes no inputs, \(inputs.count) given") }
        guard p.shape.count == 3, !p.shape.contains(0) else {
            throw LayerSpecificationError("shape \(p.shape) must be three positive sizes [C, H, W]")
        }
        return try declaredSizes(p.shape, "shape")
    }

    func reshape(_ p: CoreML_Specification_ReshapeLayerParams) throws -> [Int] {
        let dims = try shape(0), source = ClassicShape(dims)
        guard p.targetShape.count == 3 || p.targetShape.count == 4 else {
            throw LayerSpecificationError("targetShape \(p.targetShape) must have 3 ([C, H, W]) or 4 ([Seq, C, H, W]) sizes")
        }
        guard !p.targetShape.contains(0) else {
            throw LayerSpecificationError("targetShape \(p.targetShape) must hold positive sizes")
        }
        let t = try declaredSizes(p.targetShape, "targetShape")
        let target = t.count == 3
            ? ClassicShape(outer: source.outer, channels: t[0], height: t[1], width: t[2])
            : ClassicShape(outer: t[0], channels: t[1], height: t[2], width: t[3])
        guard try product(target.array) == product(source.array) else {
            let what = t.count == 3 ? "\(try product([source.channels, source.height, source.width])) values per sequence position" : "\(try product(source.array)) values"
            throw LayerSpecificationError("cannot reshape input '\(name(0))' (shape \(describe(dims)), \(what)) to \(t)")
        }
        return target.replacing(in: dims)
    }

    /// Core ML: rank 3 or more, the output keeps the rank with the last two dimensions 1
    /// (`[B, C, H, W]` → `[B, C·H·W, 1, 1]`).
    func flatten() throws -> [Int] {
        let dims = try shape(0), x = ClassicShape(dims)
        if exactMapping && dims.count < 3 {
            throw LayerSpecificationError("input '\(name(0))' has shape \(describe(dims)); flatten needs rank 3 or more (its output [.., C·H·W, 1, 1] keeps the input's rank); use flattenTo2D or reshapeStatic for lower ranks")
        }
        return ClassicShape(outer: x.outer, channels: try product([x.channels, x.height, x.width]), height: 1, width: 1).replacing(in: dims)
    }

    /// Core ML's classic softmax normalizes along axis −3 (C) and needs rank 3 or more; it keeps
    /// the shape. A lower rank would make C = 1 and every output 1, so it is an error (softmaxND
    /// takes any axis).
    func softmax() throws -> [Int] {
        let dims = try shape(0)
        guard dims.count >= 3 else {
            throw LayerSpecificationError("input '\(name(0))' has shape \(describe(dims)) (rank \(dims.count)); softmax normalizes along the channel axis (−3) and needs rank 3 or more; use softmaxND with axis −1 for a vector")
        }
        return dims
    }

    func permute(_ p: CoreML_Specification_PermuteLayerParams) throws -> [Int] {
        let source = try classic(0).array
        let dims = try p.classicAxes().map { source[$0] }
        return ClassicShape(outer: dims[0], channels: dims[1], height: dims[2], width: dims[3]).replacing(in: try shape(0))
    }

    func concat(_ p: CoreML_Specification_ConcatLayerParams) throws -> [Int] {
        let shapes = inputs.map(ClassicShape.init)
        guard var result = shapes.first else { throw LayerSpecificationError("concat needs at least one input") }
        for (index, d) in shapes.enumerated().dropFirst() {
            if p.sequenceConcat {
                guard d.channels == result.channels, d.height == result.height, d.width == result.width else {
                    throw LayerSpecificationError("sequence concat needs equal C×H×W, but '\(name(0))' is \(shapes[0].channels)×\(shapes[0].height)×\(shapes[0].width) and '\(name(index))' is \(d.channels)×\(d.height)×\(d.width)")
                }
                result.outer += d.outer
            } else {
                guard d.outer == result.outer, d.height == result.height, d.width == result.width else {
                    throw LayerSpecificationError("channel concat needs equal sequence length, height and width, but '\(name(0))' is \(shapes[0]) and '\(name(index))' is \(d) [outer×C×H×W]")
                }
                result.channels += d.channels
            }
        }
        return result.replacing(in: inputs[0])
    }

    func lstm(_ p: CoreML_Specification_UniDirectionalLSTMLayerParams) throws -> [[Int]] {
        let dims = try shape(0), x = ClassicShape(dims)
        let inputSize = try declared(p.inputVectorSize, "inputVectorSize"), hiddenSize = try declared(p.outputVectorSize, "outputVectorSize")
        let values = try product([x.channels, x.height, x.width])
        guard values == inputSize else {
            throw LayerSpecificationError("input '\(name(0))' has \(values) values per step (shape \(describe(dims))); inputVectorSize is \(inputSize)")
        }
        let leading = Array(dims.dropLast(3))
        // Exact mapping, [Seq, Batch, C, H, W]: time is the first axis and the inner batch must be 1.
        let keepsRank = leading.count >= 2
        if keepsRank && !leading.dropFirst().allSatisfy({ $0 == 1 }) {
            throw LayerSpecificationError("input '\(name(0))' has shape \(describe(dims)); the batch axis of [Seq, Batch, C, H, W] must be 1 (pass examples as the batch)")
        }
        for index in inputs.indices.dropFirst() {
            let values = try product(inputs[index])
            if values != hiddenSize {
                throw LayerSpecificationError("input '\(name(index))' (initial \(index == 1 ? "output" : "cell state")) has \(values) values (shape \(describe(inputs[index]))); outputVectorSize is \(hiddenSize)")
            }
        }
        func outputShape(outer: Int) -> [Int] {
            keepsRank
                ? [outer] + [Int](repeating: 1, count: leading.count - 1) + [hiddenSize, 1, 1]
                : ClassicShape(outer: outer, channels: hiddenSize, height: 1, width: 1).dims
        }
        let sequence = outputShape(outer: p.params.sequenceOutput ? x.outer : 1)
        return [sequence] + [[Int]](repeating: outputShape(outer: 1), count: layer.output.count - 1)
    }

    func softmaxND(_ p: CoreML_Specification_SoftmaxNDLayerParams) throws -> [Int] {
        let dims = try shape(0)
        _ = try axis(p.axis, rank: dims.count, of: 0)
        return dims
    }

    func concatND(_ p: CoreML_Specification_ConcatNDLayerParams) throws -> [Int] {
        let first = inputs[0]
        let resolved = try axis(p.axis, rank: first.count, of: 0)
        for index in inputs.indices.dropFirst() {
            let other = inputs[index]
            guard other.count == first.count else {
                throw LayerSpecificationError("input '\(name(index))' has rank \(other.count) (shape \(describe(other))), input '\(name(0))' has rank \(first.count) (shape \(describe(first)))")
            }
            for d in 0..<first.count where d != resolved && other[d] != first[d] {
                throw LayerSpecificationError("input '\(name(index))' (shape \(describe(other))) differs from input '\(name(0))' (shape \(describe(first))) in dimension \(d), which is not the concatenation axis \(resolved)")
            }
            if p.interleave && other != first {
                throw LayerSpecificationError("interleaving needs inputs of one shape; '\(name(index))' has shape \(describe(other)), '\(name(0))' has \(describe(first))")
            }
        }
        var dims = first
        dims[resolved] = inputs.reduce(0) { $0 + $1[resolved] }
        return dims
    }

    func batchedMatmul(_ p: CoreML_Specification_BatchedMatMulLayerParams) throws -> [Int] {
        if inputs.count == 1 {
            let dims = inputs[0]
            let rows = try declared(p.weightMatrixFirstDimension, "weightMatrixFirstDimension")
            let columns = try declared(p.weightMatrixSecondDimension, "weightMatrixSecondDimension")
            guard let last = dims.last, last == rows else {
                throw LayerSpecificationError("input '\(name(0))' has shape \(describe(dims)); its last dimension must be weightMatrixFirstDimension (\(rows))")
            }
            return dims.dropLast() + [columns]
        }
        var dimsA = inputs[0], dimsB = inputs[1]
        guard !dimsA.isEmpty, !dimsB.isEmpty else {
            throw LayerSpecificationError("inputs '\(name(0))' and '\(name(1))' must have rank 1 or more")
        }
        if dimsA.count == 1 { dimsA.insert(1, at: 0) }
        if dimsB.count == 1 { dimsB.append(1) }
        let (rowsA, colsA) = (dimsA[dimsA.count - 2], dimsA[dimsA.count - 1])
        let (rowsB, colsB) = (dimsB[dimsB.count - 2], dimsB[dimsB.count - 1])
        let m = p.transposeA ? colsA : rowsA, k = p.transposeA ? rowsA : colsA
        let kB = p.transposeB ? colsB : rowsB, n = p.transposeB ? rowsB : colsB
        guard k == kB else {
            throw LayerSpecificationError("cannot multiply '\(name(0))' (shape \(describe(inputs[0]))\(p.transposeA ? ", transposed" : "")) by '\(name(1))' (shape \(describe(inputs[1]))\(p.transposeB ? ", transposed" : "")): inner sizes \(k) and \(kB) differ")
        }
        // Broadcast the leading (batch) dimensions, aligned from the right.
        let batchA = Array(dimsA.dropLast(2)), batchB = Array(dimsB.dropLast(2))
        let rank = max(batchA.count, batchB.count)
        let paddedA = [Int](repeating: 1, count: rank - batchA.count) + batchA
        let paddedB = [Int](repeating: 1, count: rank - batchB.count) + batchB
        var batchDims: [Int] = []
        for (x, y) in zip(paddedA, paddedB) {
            guard x == y || x == 1 || y == 1 else {
                throw LayerSpecificationError("the leading dimensions of '\(name(0))' (shape \(describe(inputs[0]))) and '\(name(1))' (shape \(describe(inputs[1]))) do not broadcast: \(x) against \(y)")
            }
            batchDims.append(max(x, y))
        }
        return batchDims + [m, n]
    }

    func flattenTo2D(_ p: CoreML_Specification_FlattenTo2DLayerParams) throws -> [Int] {
        let dims = try shape(0)
        let resolved = try axis(p.axis, rank: dims.count, allowingEnd: true, of: 0)
        return [try product(Array(dims[..<resolved])), try product(Array(dims[resolved...]))]
    }

    func reshapeStatic(_ p: CoreML_Specification_ReshapeStaticLayerParams) throws -> [Int] {
        let target = p.targetShape
        guard !target.isEmpty else { throw LayerSpecificationError("targetShape is empty") }
        let inferred = target.indices.filter { target[$0] == -1 }
        guard inferred.count <= 1, target.allSatisfy({ $0 > 0 || $0 == -1 }) else {
            throw LayerSpecificationError("targetShape \(target) must hold positive sizes and at most one −1")
        }
        let dims = try shape(0)
        var result = try target.map { size throws(LayerSpecificationError) in size == -1 ? -1 : try declared(size, "targetShape") }
        let count = try product(dims)
        if let slot = inferred.first {
            let known = try product(result.enumerated().map { $0.offset == slot ? 1 : $0.element })
            guard count % known == 0 else {
                throw LayerSpecificationError("cannot infer the −1 of targetShape \(target): input '\(name(0))' (shape \(describe(dims))) has \(count) values per example, not a multiple of \(known)")
            }
            result[slot] = count / known
        }
        let resultCount = try product(result)
        guard resultCount == count else {
            throw LayerSpecificationError("targetShape \(target) holds \(resultCount) values, but input '\(name(0))' (shape \(describe(dims))) has \(count) per example (the target shape describes one example; the batch is kept apart)")
        }
        return result
    }
}
