/// The element types of a multi-array; the raw values are the format's own.
public enum MLMultiArrayDataType: Int, Sendable, CustomStringConvertible {
    case double = 65600
    case float32 = 65568
    case float16 = 65552
    case int32 = 131104
    case int8 = 131080

    public static let float64 = MLMultiArrayDataType.double
    public static let float = MLMultiArrayDataType.float32

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
