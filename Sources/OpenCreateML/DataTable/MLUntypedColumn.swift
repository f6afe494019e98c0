import Foundation

/// A column of data values whose element type is known only at run time.
///
/// A table's columns come out as untyped columns (`table["age"]`); `type` tells their kind, and
/// `ints`, `doubles`, `strings`, … (or `column(type:)`) give the typed `MLDataColumn` when the kind
/// matches. Untyped columns compare and combine elementwise with each other and with scalars; a
/// comparison gives an integer column of 1s and 0s that filters a table:
///
/// ```swift
/// let adults = table[table["age"] >= 18]
/// let ratio = table["width"] / table["height"]
/// ```
///
/// An operation that cannot work does not trap: the result's `isValid` is false and `error` says why.
public struct MLUntypedColumn: CustomStringConvertible, CustomDebugStringConvertible, Sendable {
    var storage: ColumnStorage
    var failure: CreateMLError?

    init(storage: ColumnStorage, failure: CreateMLError? = nil) {
        self.storage = storage
        self.failure = failure
    }

    static var typeName: String { "MLUntypedColumn" }

    /// An empty column of type `.invalid`.
    public init() { self.init(storage: .empty) }

    /// A column of the given convertible elements, in order.
    public init<S: Sequence>(_ elements: S) where S.Element: MLDataValueConvertible {
        self.init(storage: MLDataColumn<S.Element>.storage(of: Array(elements)))
    }

    /// A column of the given data values; `.invalid` elements are missing. Integers and doubles
    /// mixed make a double column; other mixed kinds make an invalid column.
    public init<S: Sequence>(_ values: S) where S.Element == MLDataValue {
        let array = Array(values)
        if let s = ColumnStorage.from(values: array) { self.init(storage: s) } else {
            self = .invalid(CreateMLError("MLUntypedColumn", "the values mix kinds (\(Set(array.filter(\.isValid).map(\.type)).map(\.description).sorted().joined(separator: ", ")))"))
        }
    }

    /// A column of the integers in `range`.
    public init(_ range: Range<Int>) { self.init(storage: ColumnStorage(.int(Array(range)))) }

    /// A column of the integers in `range`.
    public init(_ range: ClosedRange<Int>) { self.init(storage: ColumnStorage(.int(Array(range)))) }

    /// A column of `count` copies of a data value (missing values when it is `.invalid`).
    public init(repeating value: MLDataValue, count: Int) {
        let n = Swift.max(count, 0)
        self.init(storage: value.isValid ? ColumnStorage.repeating(value, count: n) : ColumnStorage(.boxed(Array(repeating: .invalid, count: n), .invalid)))
    }

    /// A column of `count` copies of a convertible value.
    public init<T: MLDataValueConvertible>(repeating value: T, count: Int) {
        self.init(storage: ColumnStorage.repeating(value.dataValue, count: Swift.max(count, 0)))
    }

    /// The column converted to integers (see `map(to:)`).
    public init(ints column: MLUntypedColumn) { self.init(storage: column.storage.converted(to: .int), failure: column.failure) }
    /// The column converted to doubles (see `map(to:)`).
    public init(doubles column: MLUntypedColumn) { self.init(storage: column.storage.converted(to: .double), failure: column.failure) }
    /// The column converted to strings (see `map(to:)`).
    public init(strings column: MLUntypedColumn) { self.init(storage: column.storage.converted(to: .string), failure: column.failure) }

    // MARK: Inspecting

    /// The kind of the elements; `.invalid` for an empty column or one holding only missing values.
    public var type: MLDataValue.ValueType { storage.type }

    /// The number of elements, missing ones included.
    public var count: Int { storage.count }

    /// Whether the column has no elements.
    public var isEmpty: Bool { storage.count == 0 }

    /// Whether the column is usable: false when the operation that made it failed.
    public var isValid: Bool { failure == nil }

    /// Why the column is invalid, or nil when it is valid.
    public var error: Error? { failure }

    /// The element at `index`; `.invalid` when it is missing. Traps when `index` is out of range.
    public subscript(index: Int) -> MLDataValue { storage[index] }

    /// The elements at the given positions; invalid when the range leaves the column.
    public subscript<R: RangeExpression>(bounds: R) -> MLUntypedColumn where R.Bound == Int { selecting(bounds) }

    /// The elements whose mask element is true; invalid when the mask's length differs.
    public subscript(mask: MLDataColumn<Bool>) -> MLUntypedColumn { selecting(mask: mask) }

    /// The elements whose mask element is a non-zero number; invalid when the mask's length differs.
    public subscript(mask: MLUntypedColumn) -> MLUntypedColumn { selecting(mask: mask) }

    /// The first `maxLength` elements (all of them when there are fewer).
    public func prefix(_ maxLength: Int) -> MLUntypedColumn { selectingPrefix(maxLength) }

    /// The last `maxLength` elements (all of them when there are fewer).
    public func suffix(_ maxLength: Int) -> MLUntypedColumn { selectingSuffix(maxLength) }

    // MARK: Typed views

    /// The column as `MLDataColumn<T>` when its elements are of `T`'s kind, without converting;
    /// otherwise nil. An empty or all-missing column fits any kind.
    public func column<T: MLDataValueConvertible>(type: T.Type) -> MLDataColumn<T>? {
        guard isValid else { return nil }
        if storage.type == T.dataValueType { return MLDataColumn<T>(storage: storage) }
        if storage.type == .invalid {
            return MLDataColumn<T>(storage: storage.converted(to: T.dataValueType))
        }
        return nil
    }

    /// The integer column, or nil when the elements are not integers.
    public var ints: MLDataColumn<Int>? { column(type: Int.self) }
    /// The double column, or nil when the elements are not doubles (integers are not widened).
    public var doubles: MLDataColumn<Double>? { column(type: Double.self) }
    /// The string column, or nil when the elements are not strings.
    public var strings: MLDataColumn<String>? { column(type: String.self) }
    /// The sequence column, or nil when the elements are not sequences.
    public var sequences: MLDataColumn<MLDataValue.SequenceType>? { column(type: MLDataValue.SequenceType.self) }
    /// The dictionary column, or nil when the elements are not dictionaries.
    public var dictionaries: MLDataColumn<MLDataValue.DictionaryType>? { column(type: MLDataValue.DictionaryType.self) }
    /// The multidimensional-array column, or nil when the elements are not multidimensional arrays.
    public var multiArrays: MLDataColumn<MLDataValue.MultiArrayType>? { column(type: MLDataValue.MultiArrayType.self) }

    // MARK: Transforming

    /// The elements converted to `type`: integers widen to doubles, doubles truncate toward zero to
    /// integers, numbers become their text, text parses as numbers; an element that does not
    /// convert is missing.
    public func map<T: MLDataValueConvertible>(to type: T.Type) -> MLDataColumn<T> {
        MLDataColumn<T>(storage: storage.converted(to: T.dataValueType), failure: failure)
    }

    /// A typed column of `transform` applied to every element that is not missing.
    public func map<T: MLDataValueConvertible>(_ transform: (MLDataValue) throws -> T) rethrows -> MLDataColumn<T> {
        var out: [T?] = []
        out.reserveCapacity(count)
        for i in 0..<count { out.append(storage.isMissing(i) ? nil : try transform(storage[i])) }
        return MLDataColumn<T>.column(ofOptionals: out).withFailure(failure)
    }

    /// A typed column of `transform` applied to every element that is not missing; a nil result is
    /// missing.
    public func map<T: MLDataValueConvertible>(_ transform: (MLDataValue) throws -> T?) rethrows -> MLDataColumn<T> {
        var out: [T?] = []
        out.reserveCapacity(count)
        for i in 0..<count { out.append(storage.isMissing(i) ? nil : try transform(storage[i])) }
        return MLDataColumn<T>.column(ofOptionals: out).withFailure(failure)
    }

    /// A typed column of `transform` applied to every element, missing ones included (as
    /// `.invalid`); a nil result is missing.
    public func mapMissing<T: MLDataValueConvertible>(_ transform: (MLDataValue) throws -> T?) rethrows -> MLDataColumn<T> {
        var out: [T?] = []
        out.reserveCapacity(count)
        for i in 0..<count { out.append(try transform(storage[i])) }
        return MLDataColumn<T>.column(ofOptionals: out).withFailure(failure)
    }

    /// The column without its missing elements.
    public func dropMissing() -> MLUntypedColumn { MLUntypedColumn(storage: storage.gather(storage.presentIndices), failure: failure) }

    /// The column with every missing element replaced by `value`; invalid when `value` is of
    /// another kind than the column (an integer may fill a double column).
    public func fillMissing(with value: MLDataValue) -> MLUntypedColumn {
        guard let filled = storage.filled(with: value) else {
            return .invalid(CreateMLError("fillMissing", "a \(value.type) value cannot fill a \(storage.type) column"))
        }
        return MLUntypedColumn(storage: filled, failure: failure)
    }

    /// The column without repeated elements, keeping each first occurrence in order.
    public func dropDuplicates() -> MLUntypedColumn {
        var seen = Set<MLDataValue>()
        let keep = (0..<count).filter { seen.insert(storage[$0]).inserted }
        return MLUntypedColumn(storage: storage.gather(keep), failure: failure)
    }

    /// The elements sorted, increasing or decreasing; missing elements go last. The sort is stable.
    public func sort(byIncreasingOrder increasing: Bool = true) -> MLUntypedColumn {
        MLUntypedColumn(storage: storage.gather(sortedIndices(storage, increasing: increasing)), failure: failure)
    }

    /// Appends another column's elements; integers and doubles together become doubles, and other
    /// mixed kinds make the column invalid.
    public mutating func append(contentsOf other: MLUntypedColumn) {
        if let joined = storage.appending(other.storage) { storage = joined } else {
            failure = failure ?? CreateMLError("MLUntypedColumn.append", "cannot append \(other.type) values to a \(type) column")
        }
        failure = failure ?? other.failure
    }

    /// A copy of the column (columns are values; this exists for Create ML source compatibility).
    public func copy() -> MLUntypedColumn { self }

    /// The column itself: ours are computed eagerly. Throws the column's error when it is invalid.
    public func materialize() throws -> MLUntypedColumn {
        if let failure { throw failure }
        return self
    }

    // MARK: Describing

    /// The element kind and the first elements: `ValueType: Int` then `Values: [1, 2, 3]`.
    public var description: String { describeColumn(storage, failure: failure) }

    /// The same as `description`.
    public var debugDescription: String { description }
}
