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
    /// A control-flow layer reads and writes the blobs its nested networks do (``blobsRead``,
    /// ``blobsWritten``). Where a blob has several writers (a `copy` overwrites it), the file's order
    /// decides which value a layer reads: a reader runs after the writers before it in the file, and
    /// a writer after the layers before it in the file that read or write that blob.
    ///
    /// Throws `ModelValidationError` naming the first layer whose input nothing produces.
    public static func dependencyOrder(_ layers: [Self], available: Set<String>) throws -> [Int] {
        let graph = DependencyGraph(layers)
        var ready = available
        var done = [Bool](repeating: false, count: layers.count)
        var remaining = Array(layers.indices)
        var order: [Int] = []
        while !remaining.isEmpty {
            guard let next = remaining.firstIndex(where: { index in
                graph.reads[index].allSatisfy(ready.contains) && graph.after[index].allSatisfy { done[$0] }
            }) else {
                let layer = layers[remaining[0]]
                let missing = graph.reads[remaining[0]].filter { !ready.contains($0) }
                throw ModelValidationError(
                    location: "layer '\(layer.name)'",
                    message: missing.isEmpty
                        ? "the layer waits on layers that wait on it (the order of the blobs a copy layer overwrites)"
                        : "input \(missing.map { "'\($0)'" }.joined(separator: ", ")) is produced by no layer or model input")
            }
            let index = remaining.remove(at: next)
            order.append(index)
            done[index] = true
            ready.formUnion(graph.writes[index])
        }
        return order
    }
}

/// Which layers of one network must run before which: each layer's blobs read and written (nested
/// networks included), and the layers it waits on.
struct DependencyGraph {
    let reads: [[String]]
    let writes: [[String]]
    /// The layers each layer waits on, besides the writers of what it reads becoming available.
    let after: [Set<Int>]
    /// The layers each layer waits on, the writers of what it reads included (for finding cycles).
    let edges: [Set<Int>]

    init(_ layers: [CoreML_Specification_NeuralNetworkLayer]) {
        reads = layers.map(\.blobsRead)
        writes = layers.map(\.blobsWritten)
        var writers: [String: [Int]] = [:]
        var readers: [String: [Int]] = [:]
        for index in layers.indices {
            for blob in writes[index] { writers[blob, default: []].append(index) }
            for blob in reads[index] { readers[blob, default: []].append(index) }
        }
        var after = [Set<Int>](repeating: [], count: layers.count)
        var edges = [Set<Int>](repeating: [], count: layers.count)
        for index in layers.indices {
            for blob in reads[index] {
                let all = writers[blob] ?? []
                let before = all.filter { $0 < index }
                if all.count > 1 { after[index].formUnion(before) }
                if let first = before.isEmpty ? all.first : nil {
                    edges[index].insert(first)
                } else {
                    edges[index].formUnion(before)
                }
            }
            for blob in writes[index] where (writers[blob]?.count ?? 0) > 1 {
                let earlier = (writers[blob] ?? []).filter { $0 < index } + (readers[blob] ?? []).filter { $0 < index }
                after[index].formUnion(earlier)
            }
            edges[index].formUnion(after[index])
        }
        self.after = after
        self.edges = edges
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
