/// The element types of a multi-array; the raw values are the format's own.
public enum MLMultiArrayDataType: Int, Sendable, CustomStringConvertible {
    /// 64-bit floating point.
    case double = 65600
    /// 32-bit floating point: what neural networks compute in.
    case float32 = 65568
    /// 16-bit floating point (IEEE 754 half precision), stored as its bit pattern.
    case float16 = 65552
    /// 32-bit signed integers, such as class indices for a cross-entropy loss.
    case int32 = 131104
    /// 8-bit signed integers.
    case int8 = 131080

    /// Another name for ``MLMultiArrayDataType/double``.
    public static let float64 = MLMultiArrayDataType.double
    /// Another name for ``MLMultiArrayDataType/float32``.
    public static let float = MLMultiArrayDataType.float32

    /// The type's name, such as `Float32`.
    public var description: String {
        switch self {
        case .double: return "Double"
        case .float32: return "Float32"
        case .float16: return "Float16"
        case .int32: return "Int32"
        case .int8: return "Int8"
        }
    }
}
