import Foundation

/// The value of one cell of a data table.
///
/// A cell holds an integer, a floating-point number, a string, a sequence of values, a dictionary
/// of values, or a multidimensional array of doubles; `.invalid` marks a missing value (an empty
/// CSV field, a missing-value marker such as `NA`, a JSON `null`, a key a JSON row lacks).
///
/// ```swift
/// let cell = table.rows[0]["age"]        // MLDataValue?
/// if let age = cell?.intValue { print(age) }
/// ```
public enum MLDataValue: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// An integer.
    case int(Int)
    /// A double-precision floating-point number.
    case double(Double)
    /// A string.
    case string(String)
    /// An ordered sequence of data values.
    indirect case sequence(MLDataValue.SequenceType)
    /// A dictionary of data values keyed by data values.
    indirect case dictionary(MLDataValue.DictionaryType)
    /// A multidimensional array of doubles.
    indirect case multiArray(MLDataValue.MultiArrayType)
    /// No value: a missing or invalid cell.
    case invalid

    /// The kind of value this is.
    public var type: MLDataValue.ValueType {
        switch self {
        case .int: return .int
        case .double: return .double
        case .string: return .string
        case .sequence: return .sequence
        case .dictionary: return .dictionary
        case .multiArray: return .multiArray
        case .invalid: return .invalid
        }
    }

    /// Whether the value is anything but `.invalid`.
    public var isValid: Bool { self != .invalid }

    /// The integer, when the value is `.int`; otherwise nil.
    public var intValue: Int? { if case .int(let v) = self { return v } else { return nil } }

    /// The number, when the value is `.double`; otherwise nil (an `.int` gives nil, as in Create ML).
    public var doubleValue: Double? { if case .double(let v) = self { return v } else { return nil } }

    /// The string, when the value is `.string`; otherwise nil.
    public var stringValue: String? { if case .string(let v) = self { return v } else { return nil } }

    /// The sequence, when the value is `.sequence`; otherwise nil.
    public var sequenceValue: MLDataValue.SequenceType? { if case .sequence(let v) = self { return v } else { return nil } }

    /// The dictionary, when the value is `.dictionary`; otherwise nil.
    public var dictionaryValue: MLDataValue.DictionaryType? { if case .dictionary(let v) = self { return v } else { return nil } }

    /// The multidimensional array, when the value is `.multiArray`; otherwise nil.
    public var multiArrayValue: MLDataValue.MultiArrayType? { if case .multiArray(let v) = self { return v } else { return nil } }

    /// The value as a table prints it: numbers and strings plainly, sequences in brackets,
    /// dictionaries in braces, `.invalid` as `nil`.
    public var description: String {
        switch self {
        case .int(let v): return String(v)
        case .double(let v): return String(v)
        case .string(let v): return v
        case .sequence(let v): return v.description
        case .dictionary(let v): return v.description
        case .multiArray(let v): return v.description
        case .invalid: return "nil"
        }
    }

    /// The case and its payload, for debugging (`int(3)`, `string("a")`, `invalid`).
    public var debugDescription: String {
        switch self {
        case .int(let v): return "int(\(v))"
        case .double(let v): return "double(\(v))"
        case .string(let v): return "string(\(v.debugDescription))"
        case .sequence(let v): return "sequence(\(v.debugDescription))"
        case .dictionary(let v): return "dictionary(\(v.debugDescription))"
        case .multiArray(let v): return "multiArray(\(v.debugDescription))"
        case .invalid: return "invalid"
        }
    }
}
