import CoreMLSpec

/// The type of a model input or output in a declaration.
///
/// SwiftCoreMLTools' `.float` and `.int` are here (float32 and int32 multi-arrays); the other cases
/// are OpenCoreML additions.
public enum FeatureType: Equatable, Sendable {
    /// A float32 multi-array of the feature's shape.
    case float
    /// A double multi-array.
    case double
    /// An int32 multi-array (for example a class index as a cross-entropy target).
    case int
    /// A single string (a class label).
    case string
    /// A single 64-bit integer (a class label).
    case int64
    /// An image; its size is the shape's last two dimensions (height, width).
    case image(colorSpace: ImageColorSpace)

    /// The feature type in the format, for a feature of `shape`.
    func specification(shape: [UInt], location: String) throws -> CoreML_Specification_FeatureType {
        var type = CoreML_Specification_FeatureType()
        switch self {
        case .float, .double, .int:
            guard !shape.isEmpty, !shape.contains(0) else {
                throw ModelToolsError(location, "a multi-array needs a shape with no zero dimension, got \(shape)")
            }
            type.multiArrayType.shape = shape.map { Int64($0) }
            type.multiArrayType.dataType = self == .float ? .float32 : self == .double ? .double : .int32
        case .string:
            type.stringType = CoreML_Specification_StringFeatureType()
        case .int64:
            type.int64Type = CoreML_Specification_Int64FeatureType()
        case .image(let colorSpace):
            guard shape.count >= 2, let height = shape.dropLast().last, let width = shape.last, height > 0, width > 0 else {
                throw ModelToolsError(location, "an image needs a shape ending in height and width, got \(shape)")
            }
            if shape.count >= 3, shape[shape.count - 3] != UInt(colorSpace.channels) {
                throw ModelToolsError(location, "a \(colorSpace) image has \(colorSpace.channels) channel(s), the shape \(shape) says \(shape[shape.count - 3])")
            }
            type.imageType.width = Int64(width)
            type.imageType.height = Int64(height)
            type.imageType.colorSpace = colorSpace.specification
        }
        return type
    }
}

/// The pixel format of an image feature.
public enum ImageColorSpace: String, Sendable, CustomStringConvertible {
    /// One channel of gray, or three colour channels in red-green-blue or blue-green-red order.
    case grayscale, rgb, bgr

    var channels: Int { self == .grayscale ? 1 : 3 }

    var specification: CoreML_Specification_ImageFeatureType.ColorSpace {
        switch self {
        case .grayscale: return .grayscale
        case .rgb: return .rgb
        case .bgr: return .bgr
        }
    }

    /// The colour space's name: `grayscale`, `rgb` or `bgr`.
    public var description: String { rawValue }
}
