import CoreMLSpec

extension CoreML_Specification_FeatureType {
    /// The per-example shape a neural network sees for a feature of this type.
    ///
    /// Multi-arrays under Core ML's rank-5 mapping: `[C]` becomes `[C, 1, 1]`, `[C, H, W]` stays,
    /// `[S, B, C, H, W]` becomes `[S, C, H, W]` (B must be 1: the engine batches on its own axis).
    /// Under the exact mapping the shape is kept. Images are `[channels, height, width]`;
    /// scalars are `[1, 1, 1]`. Flexible shapes use their default (the declared shape, or the first
    /// enumerated one).
    package func networkShape(exactMapping: Bool, location: String) throws -> TensorShape {
        switch type {
        case .multiArrayType(let array)?:
            var dims = array.shape.map(Int.init)
            if dims.isEmpty, case .enumeratedShapes(let shapes)? = array.shapeFlexibility, let first = shapes.shapes.first {
                dims = first.shape.map(Int.init)
            }
            if dims.isEmpty, case .shapeRange(let ranges)? = array.shapeFlexibility {
                dims = ranges.sizeRanges.map { Int(max($0.lowerBound, 1)) }
            }
            guard !dims.isEmpty, dims.allSatisfy({ $0 > 0 }) else {
                throw EngineError(location, "multi-array shape \(dims) has no fixed positive size")
            }
            if exactMapping { return TensorShape(dims) }
            switch dims.count {
            case 1: return TensorShape([dims[0], 1, 1])
            case 3: return TensorShape(dims)
            case 5:
                guard dims[1] == 1 else { throw EngineError(location, "rank-5 shape \(dims) has a batch size of \(dims[1]); use 1 and pass batches") }
                return TensorShape.classic(outer: dims[0], channels: dims[2], height: dims[3], width: dims[4])
            default:
                // Other ranks: the trailing dimensions are C, H, W (as under the exact mapping).
                return TensorShape(dims)
            }
        case .imageType(let image)?:
            let channels = image.colorSpace == .grayscale || image.colorSpace == .grayscaleFloat16 ? 1 : 3
            guard image.width > 0, image.height > 0 else {
                throw EngineError(location, "image size \(image.width)×\(image.height) is not fixed")
            }
            return TensorShape([channels, Int(image.height), Int(image.width)])
        case .int64Type?, .doubleType?:
            return TensorShape([1, 1, 1])
        default:
            throw EngineError(location, "a neural network cannot take this feature type as input")
        }
    }
}
