/// The kinds of value a model's input or output can hold.
public enum MLFeatureType: Int, Sendable, CustomStringConvertible {
    /// No valid type: a feature whose type the model leaves unset.
    case invalid = 0
    /// A 64-bit integer, such as an integer class label.
    case int64 = 1
    /// A double-precision floating-point number.
    case double = 2
    /// A string, such as a class label.
    case string = 3
    /// An image, passed as a pixel buffer.
    case image = 4
    /// A multidimensional array of numbers (``MLMultiArray``).
    case multiArray = 5
    /// A dictionary from strings or 64-bit integers to numbers, such as a classifier's probabilities.
    case dictionary = 6
    /// A sequence of strings or 64-bit integers.
    case sequence = 7
    /// A state of a stateful model (iOS 18): a buffer an ``MLState`` carries from one prediction to the next.
    case state = 8

    /// The type's name, such as `MultiArray`.
    public var description: String {
        switch self {
        case .invalid: return "Invalid"
        case .int64: return "Int64"
        case .double: return "Double"
        case .string: return "String"
        case .image: return "Image"
        case .multiArray: return "MultiArray"
        case .dictionary: return "Dictionary"
        case .sequence: return "Sequence"
        case .state: return "State"
        }
    }
}
