import Foundation

/// A type whose values convert to and from data values, and so can fill table columns.
///
/// `Int`, `Double`, `Float`, `String` and `Bool` conform, as do arrays and dictionaries of
/// conforming types and the `MLDataValue` payload types. A conforming type names the kind of data
/// value it becomes (`dataValueType`), converts itself (`dataValue`), converts back
/// (`init(from:)`), and has a default value (`init()`) that stands in for a missing cell where a
/// non-optional element is required.
///
/// ```swift
/// let table = try MLDataTable(dictionary: ["x": [1, 2, 3], "label": ["a", "b", "c"]])
/// ```
public protocol MLDataValueConvertible {
    /// Creates the default value, used where a missing cell must still produce an element.
    init()
    /// Creates a value from a data value, or nil when the data value is of another kind.
    init?(from dataValue: MLDataValue)
    /// This value wrapped in a data value.
    var dataValue: MLDataValue { get }
    /// The kind of data value values of this type become.
    static var dataValueType: MLDataValue.ValueType { get }
}

extension Int: MLDataValueConvertible {
    /// An integer from `.int`; nil for any other kind (a double is not truncated).
    public init?(from dataValue: MLDataValue) {
        guard case .int(let v) = dataValue else { return nil }
        self = v
    }
    /// `.int(self)`.
    public var dataValue: MLDataValue { .int(self) }
    /// `.int`.
    public static var dataValueType: MLDataValue.ValueType { .int }
}

extension Double: MLDataValueConvertible {
    /// A number from `.double`, or from `.int` widened; nil for any other kind.
    public init?(from dataValue: MLDataValue) {
        switch dataValue {
        case .double(let v): self = v
        case .int(let v): self = Double(v)
        default: return nil
        }
    }
    /// `.double(self)`.
    public var dataValue: MLDataValue { .double(self) }
    /// `.double`.
    public static var dataValueType: MLDataValue.ValueType { .double }
}

extension Float: MLDataValueConvertible {
    /// A number from `.double` (rounded to single precision) or `.int`; nil for any other kind.
    public init?(from dataValue: MLDataValue) {
        switch dataValue {
        case .double(let v): self = Float(v)
        case .int(let v): self = Float(v)
        default: return nil
        }
    }
    /// `.double(Double(self))`: single-precision values are held as doubles.
    public var dataValue: MLDataValue { .double(Double(self)) }
    /// `.double`.
    public static var dataValueType: MLDataValue.ValueType { .double }
}

extension String: MLDataValueConvertible {
    /// A string from `.string`; nil for any other kind (numbers are not printed).
    public init?(from dataValue: MLDataValue) {
        guard case .string(let v) = dataValue else { return nil }
        self = v
    }
    /// `.string(self)`.
    public var dataValue: MLDataValue { .string(self) }
    /// `.string`.
    public static var dataValueType: MLDataValue.ValueType { .string }
}

extension Bool: MLDataValueConvertible {
    /// True for a non-zero `.int`, false for zero; nil for any other kind.
    public init?(from dataValue: MLDataValue) {
        guard case .int(let v) = dataValue else { return nil }
        self = v != 0
    }
    /// `.int(1)` or `.int(0)`: Booleans are held as integers, so a mask added to a table is an
    /// integer column.
    public var dataValue: MLDataValue { .int(self ? 1 : 0) }
    /// `.int`.
    public static var dataValueType: MLDataValue.ValueType { .int }
}

extension Array: MLDataValueConvertible where Element: MLDataValueConvertible {
    /// The elements of a `.sequence`, each converted; nil when the value is not a sequence or an
    /// element does not convert.
    public init?(from dataValue: MLDataValue) {
        guard case .sequence(let sequence) = dataValue else { return nil }
        var result: [Element] = []
        result.reserveCapacity(sequence.count)
        for value in sequence {
            guard let element = Element(from: value) else { return nil }
            result.append(element)
        }
        self = result
    }
    /// `.sequence` of the elements' data values.
    public var dataValue: MLDataValue { .sequence(MLDataValue.SequenceType(self)) }
    /// `.sequence`.
    public static var dataValueType: MLDataValue.ValueType { .sequence }
}

extension Dictionary: MLDataValueConvertible where Key: MLDataValueConvertible, Value: MLDataValueConvertible {
    /// The entries of a `.dictionary`, each key and value converted; nil when the value is not a
    /// dictionary or an entry does not convert.
    public init?(from dataValue: MLDataValue) {
        guard case .dictionary(let dictionary) = dataValue else { return nil }
        var result: [Key: Value] = [:]
        for (k, v) in dictionary {
            guard let key = Key(from: k), let value = Value(from: v) else { return nil }
            result[key] = value
        }
        self = result
    }
    /// `.dictionary` of the entries' data values.
    public var dataValue: MLDataValue {
        .dictionary(MLDataValue.DictionaryType(uniqueKeysWithValues: map { ($0.key.dataValue, $0.value.dataValue) }))
    }
    /// `.dictionary`.
    public static var dataValueType: MLDataValue.ValueType { .dictionary }
}

extension MLDataValue.SequenceType: MLDataValueConvertible {
    /// The sequence of a `.sequence` value; nil for any other kind.
    public init?(from dataValue: MLDataValue) {
        guard case .sequence(let v) = dataValue else { return nil }
        self = v
    }
    /// `.sequence(self)`.
    public var dataValue: MLDataValue { .sequence(self) }
    /// `.sequence`.
    public static var dataValueType: MLDataValue.ValueType { .sequence }
}

extension MLDataValue.DictionaryType: MLDataValueConvertible {
    /// The dictionary of a `.dictionary` value; nil for any other kind.
    public init?(from dataValue: MLDataValue) {
        guard case .dictionary(let v) = dataValue else { return nil }
        self = v
    }
    /// `.dictionary(self)`.
    public var dataValue: MLDataValue { .dictionary(self) }
    /// `.dictionary`.
    public static var dataValueType: MLDataValue.ValueType { .dictionary }
}

extension MLDataValue.MultiArrayType: MLDataValueConvertible {
    /// The array of a `.multiArray` value; nil for any other kind.
    public init?(from dataValue: MLDataValue) {
        guard case .multiArray(let v) = dataValue else { return nil }
        self = v
    }
    /// `.multiArray(self)`.
    public var dataValue: MLDataValue { .multiArray(self) }
    /// `.multiArray`.
    public static var dataValueType: MLDataValue.ValueType { .multiArray }
}
