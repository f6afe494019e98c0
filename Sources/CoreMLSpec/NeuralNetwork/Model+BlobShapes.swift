extension CoreML_Specification_FeatureType {
    /// The per-example shape a neural network sees for a feature of this type.
    ///
    /// Multi-arrays under Core ML's rank-5 mapping: `[C]` becomes `[C, 1, 1]`, `[C, H, W]` stays,
    /// `[S, B, C, H, W]` becomes `[S, C, H, W]` (B must be 1: the engine batches on its own axis).
    /// Under the exact mapping the shape is kept. Images are `[channels, height, width]` (Core ML's
    /// RANK5_IMAGE_MAPPING, `[1, 1, C, H, W]` without sequence and batch), or `[1, channels,
    /// height, width]` with `rank4Images` (RANK4_IMAGE_MAPPING: Core ML's `[1, C, H, W]`, whose
    /// leading 1 is part of the example's shape); scalars are `[1, 1, 1]`. Flexible shapes use
    /// their default (the declared shape, or the first enumerated one).
    ///
    /// Difference from Core ML: a network without multi-array inputs that uses a rank-N layer runs
    /// in Core ML's rank-N interpretation, where a RANK5_IMAGE_MAPPING image is the rank-5
    /// `[1, 1, C, H, W]`; here it stays `[C, H, W]`, so a positive rank-N axis on it counts from C
    /// (negative axes agree). Use RANK4_IMAGE_MAPPING for Core ML's `[1, C, H, W]`.
    public func networkShape(exactMapping: Bool, rank4Images: Bool = false) throws -> [Int] {
        switch type {
        case .multiArrayType(let array)?:
            var sizes = array.shape
            if sizes.isEmpty, case .enumeratedShapes(let shapes)? = array.shapeFlexibility, let first = shapes.shapes.first {
                sizes = first.shape
            }
            if sizes.isEmpty, case .shapeRange(let ranges)? = array.shapeFlexibility {
                sizes = ranges.sizeRanges.map { max(Int64(clamping: $0.lowerBound), 1) }
            }
            guard !sizes.isEmpty, !sizes.contains(where: { $0 <= 0 }) else {
                throw LayerSpecificationError("multi-array shape \(sizes) has no fixed positive size")
            }
            let dims = try declaredSizes(sizes, "multi-array shape")
            if exactMapping { return dims }
            switch dims.count {
            case 1: return [dims[0], 1, 1]
            case 3: return dims
            case 5:
                guard dims[1] == 1 else { throw LayerSpecificationError("rank-5 shape \(dims) has a batch size of \(dims[1]); use 1 and pass batches") }
                return ClassicShape(outer: dims[0], channels: dims[2], height: dims[3], width: dims[4]).dims
            default:
                // Other ranks: the trailing dimensions are C, H, W (as under the exact mapping).
                return dims
            }
        case .imageType(let image)?:
            let channels = image.colorSpace == .grayscale || image.colorSpace == .grayscaleFloat16 ? 1 : 3
            guard image.width > 0, image.height > 0 else {
                throw LayerSpecificationError("image size \(image.width)×\(image.height) is not fixed")
            }
            let plane = [channels, try declared(image.height, "image height"), try declared(image.width, "image width")]
            return rank4Images ? [1] + plane : plane
        case .int64Type?, .doubleType?:
            return [1, 1, 1]
        default:
            throw LayerSpecificationError("a neural network cannot take this feature type as input")
        }
    }
}

extension CoreML_Specification_NeuralNetworkLayer {
    /// Layer indices in an order where every layer runs after the layers producing its inputs (the
    /// specification's order where it already is one), starting from the blobs in `available`.
    ///
    /// Throws `ModelValidationError` naming the first layer whose input nothing produces.
    public static func dependencyOrder(_ layers: [Self], available: Set<String>) throws -> [Int] {
        var ready = available
        var remaining = Array(layers.indices)
        var order: [Int] = []
        while !remaining.isEmpty {
            guard let next = remaining.firstIndex(where: { layers[$0].input.allSatisfy(ready.contains) }) else {
                let layer = layers[remaining[0]]
                let missing = layer.input.filter { !ready.contains($0) }
                throw ModelValidationError(
                    location: "layer '\(layer.name)'",
                    message: "input \(missing.map { "'\($0)'" }.joined(separator: ", ")) is produced by no layer or model input")
            }
            let index = remaining.remove(at: next)
            order.append(index)
            ready.formUnion(layers[index].output)
        }
        return order
    }
}

extension CoreML_Specification_Model {
    /// The shape of every blob of the neural network for one example: the inputs' (by
    /// `networkShape(exactMapping:)`) and each layer's outputs (by the layer table's
    /// `outputShapes(for:)`), in dependency order. No weight is decoded and no network is compiled.
    ///
    /// Throws `ModelValidationError` naming the input (`input 'image'`) or layer
    /// (`layer 'conv1' (convolution)`) whose shape cannot be worked out.
    public func neuralNetworkBlobShapes() throws -> [String: [Int]] {
        guard let network = neuralNetworkSpecification else {
            throw ModelValidationError(location: "model", message: "a \(modelTypeName) model is not a neural network")
        }
        let exact = network.arrayInputShapeMapping == .exactArrayMapping
        let rank4Images = network.imageInputShapeMapping == .rank4ImageMapping
        var shapes: [String: [Int]] = [:]
        for feature in description_p.input {
            let location = "input '\(feature.name)'"
            do {
                shapes[feature.name] = try feature.type.networkShape(exactMapping: exact, rank4Images: rank4Images)
            } catch let error as LayerSpecificationError {
                throw ModelValidationError(location: location, message: error.message)
            }
            _ = try checkedProduct(shapes[feature.name] ?? [], what: "the shape", where: location)
        }
        let layers = network.layers
        for index in try CoreML_Specification_NeuralNetworkLayer.dependencyOrder(layers, available: Set(shapes.keys)) {
            let layer = layers[index]
            let location = "layer '\(layer.name)' (\(layer.layerTypeName))"
            do {
                let outputs = try layer.outputShapes(for: layer.input.map { shapes[$0] ?? [] }, exactMapping: exact)
                for (blob, shape) in zip(layer.output, outputs) {
                    // Every blob's element count fits an Int, so the engine's products of its
                    // dimensions (or of some of them) cannot overflow.
                    _ = try checkedProduct(shape, what: "output '\(blob)' of shape", where: location)
                    shapes[blob] = shape
                }
            } catch let error as LayerSpecificationError {
                throw ModelValidationError(location: location, message: error.message)
            }
        }
        return shapes
    }
}
