import Foundation

/// A column of typed values, such as a table's `Int` or `Double` column.
///
/// A data column holds values of one type, some of which may be missing. Integer and double
/// columns add arithmetic (`+ - * /` with scalars and columns) and statistics (`sum()`, `mean()`,
/// `std()`, `min()`, `max()`); every column compares elementwise (`== != < > <= >=`) into a
/// `MLDataColumn<Bool>` mask that filters tables and columns.
///
/// ```swift
/// let ages = table["age", Int.self]!      // MLDataColumn<Int>
/// let adults = table[ages >= 18]          // rows where age is at least 18
/// let meanAge = ages.mean()
/// ```
///
/// Values are stored columnar (one Swift array), shared with the table they came from until either
/// is changed. An operation that cannot work (mismatched lengths, a column of the wrong type) does
/// not trap: it returns a column whose `isValid` is false and whose `error` says why.
public struct MLDataColumn<Element: MLDataValueConvertible>: CustomStringConvertible, CustomDebugStringConvertible, Sendable {
    var storage: ColumnStorage
    var failure: CreateMLError?

    init(storage: ColumnStorage, failure: CreateMLError? = nil) {
        self.storage = storage
        self.failure = failure
    }

    static var typeName: String { "MLDataColumn" }

    /// An empty column.
    public init() { self.init(storage: Self.emptyStorage) }

    /// A column of the given elements, in order.
    public init<S: Sequence>(_ elements: S) where S.Element == Element {
        self.init(storage: Self.storage(of: Array(elements)))
    }

    /// A column of `count` copies of `value`.
    public init(repeating value: Element, count: Int) {
        self.init(storage: ColumnStorage.repeating(value.dataValue, count: Swift.max(count, 0)))
    }

    /// A column of `count` copies of a data value; the column is invalid when the value is not of
    /// this column's kind (a missing `.invalid` value gives a column of missing elements).
    public init(repeating value: MLDataValue, count: Int) {
        let n = Swift.max(count, 0)
        if !value.isValid {
            self.init(storage: ColumnStorage.allMissing(Element.dataValueType, count: n))
        } else if Element(from: value) != nil, value.type == Element.dataValueType {
            self.init(storage: ColumnStorage.repeating(value, count: n))
        } else {
            self = .invalid(CreateMLError("MLDataColumn<\(Element.self)>", "cannot repeat a \(value.type) value in a \(Element.dataValueType) column"))
        }
    }

    static var emptyStorage: ColumnStorage {
        switch Element.dataValueType {
        case .int: return ColumnStorage(.int([]))
        case .double: return ColumnStorage(.double([]))
        case .string: return ColumnStorage(.string([]))
        case let t: return ColumnStorage(.boxed([], t))
        }
    }

    static func storage(of elements: [Element]) -> ColumnStorage {
        if let a = elements as? [Int] { return ColumnStorage(.int(a)) }
        if let a = elements as? [Double] { return ColumnStorage(.double(a)) }
        if let a = elements as? [String] { return ColumnStorage(.string(a)) }
        switch Element.dataValueType {
        case .int: return ColumnStorage(.int(elements.map { $0.dataValue.intValue ?? 0 }))
        case .double: return ColumnStorage(.double(elements.map { $0.dataValue.doubleValue ?? 0 }))
        case .string: return ColumnStorage(.string(elements.map { $0.dataValue.stringValue ?? "" }))
        case let t: return ColumnStorage(.boxed(elements.map(\.dataValue), t))
        }
    }

    /// Builds a column from optional elements; nil ones are missing.
    static func column(ofOptionals elements: [Element?]) -> MLDataColumn {
        let missing = elements.map { $0 == nil }
        switch Element.dataValueType {
        case .int: return MLDataColumn(storage: ColumnStorage(.int(elements.map { $0?.dataValue.intValue ?? 0 }), missing: missing))
        case .double:
            return MLDataColumn(storage: ColumnStorage(.double(elements.map { $0?.dataValue.doubleValue ?? 0 }), missing: missing))
        case .string:
            return MLDataColumn(storage: ColumnStorage(.string(elements.map { $0?.dataValue.stringValue ?? "" }), missing: missing))
        case let t: return MLDataColumn(storage: ColumnStorage(.boxed(elements.map { $0?.dataValue ?? .invalid }, t)))
        }
    }

    // MARK: Inspecting

    /// The number of elements, missing ones included.
    public var count: Int { storage.count }

    /// Whether the column has no elements.
    public var isEmpty: Bool { storage.count == 0 }

    /// Whether the column is usable: false when the operation that made it failed.
    public var isValid: Bool { failure == nil }

    /// Why the column is invalid, or nil when it is valid.
    public var error: Error? { failure }

    /// The element at `index`, or the type's default value (`Element()`) when the element is
    /// missing. Traps when `index` is out of range, like an array.
    public subscript(index: Int) -> Element { element(at: index) ?? Element() }

    /// The element at `index`, or nil when it is missing or `index` is out of range.
    public func element(at index: Int) -> Element? {
        guard index >= 0, index < storage.count else { return nil }
        return storage.element(index, as: Element.self)
    }

    /// The elements at the given positions, as a new column; invalid when the range leaves the
    /// column.
    public subscript<R: RangeExpression>(bounds: R) -> MLDataColumn where R.Bound == Int { selecting(bounds) }

    /// The elements whose mask element is true, in order; invalid when the mask's length differs.
    /// A missing mask element counts as false.
    public subscript(mask: MLDataColumn<Bool>) -> MLDataColumn { selecting(mask: mask) }

    /// The elements whose mask element is a non-zero number, in order; invalid when the mask's
    /// length differs.
    public subscript(mask: MLUntypedColumn) -> MLDataColumn { selecting(mask: mask) }

    /// The first `maxLength` elements (all of them when there are fewer).
    public func prefix(_ maxLength: Int) -> MLDataColumn { selectingPrefix(maxLength) }

    /// The last `maxLength` elements (all of them when there are fewer).
    public func suffix(_ maxLength: Int) -> MLDataColumn { selectingSuffix(maxLength) }

    // MARK: Transforming

    /// A new column of `transform` applied to every element that is not missing; missing elements
    /// stay missing.
    public func map<T: MLDataValueConvertible>(_ transform: (Element) throws -> T) rethrows -> MLDataColumn<T> {
        var out: [T?] = []
        out.reserveCapacity(count)
        for i in 0..<count { out.append(try storage.element(i, as: Element.self).map(transform)) }
        return MLDataColumn<T>.column(ofOptionals: out).withFailure(failure)
    }

    /// A new column of `transform` applied to every element that is not missing; a nil result is
    /// missing, as are missing elements.
    public func map<T: MLDataValueConvertible>(_ transform: (Element) throws -> T?) rethrows -> MLDataColumn<T> {
        var out: [T?] = []
        out.reserveCapacity(count)
        for i in 0..<count { out.append(try storage.element(i, as: Element.self).flatMap(transform)) }
        return MLDataColumn<T>.column(ofOptionals: out).withFailure(failure)
    }

    /// A new column of `transform` applied to every element, missing ones included (as nil); a nil
    /// result is missing.
    public func mapMissing<T: MLDataValueConvertible>(_ transform: (Element?) throws -> T?) rethrows -> MLDataColumn<T> {
        var out: [T?] = []
        out.reserveCapacity(count)
        for i in 0..<count { out.append(try transform(storage.element(i, as: Element.self))) }
        return MLDataColumn<T>.column(ofOptionals: out).withFailure(failure)
    }

    /// The elements converted to another type: numbers widen or truncate toward zero, numbers
    /// become their text, text parses as numbers; an element that does not convert is missing.
    public func map<T: MLDataValueConvertible>(to type: T.Type) -> MLDataColumn<T> {
        MLDataColumn<T>(storage: storage.converted(to: T.dataValueType), failure: failure)
    }

    /// The column without its missing elements.
    public func dropMissing() -> MLDataColumn { MLDataColumn(storage: storage.gather(storage.presentIndices), failure: failure) }

    /// The column with every missing element replaced by `value`.
    public func fillMissing(with value: Element) -> MLDataColumn {
        guard let filled = storage.filled(with: value.dataValue) else {
            return .invalid(CreateMLError("fillMissing", "a \(value.dataValue.type) value cannot fill a \(storage.type) column"))
        }
        return MLDataColumn(storage: filled, failure: failure)
    }

    /// The column without repeated elements, keeping each first occurrence in order (missing
    /// elements count as one value).
    public func dropDuplicates() -> MLDataColumn {
        var seen = Set<MLDataValue>()
        let keep = (0..<count).filter { seen.insert(storage[$0]).inserted }
        return MLDataColumn(storage: storage.gather(keep), failure: failure)
    }

    /// The elements sorted, increasing or decreasing; missing elements go last. The sort is stable.
    public func sort(byIncreasingOrder increasing: Bool = true) -> MLDataColumn {
        MLDataColumn(storage: storage.gather(sortedIndices(storage, increasing: increasing)), failure: failure)
    }

    /// Appends another column's elements.
    public mutating func append(contentsOf other: MLDataColumn) {
        if let joined = storage.appending(other.storage) { storage = joined }
        failure = failure ?? other.failure
    }

    /// A copy of the column (columns are values; this exists for Create ML source compatibility).
    public func copy() -> MLDataColumn { self }

    /// The column itself: ours are computed eagerly, so there is nothing left to evaluate.
    public func materialize() throws -> MLDataColumn {
        if let failure { throw failure }
        return self
    }

    func withFailure(_ error: CreateMLError?) -> MLDataColumn {
        var copy = self
        copy.failure = copy.failure ?? error
        return copy
    }

    // MARK: Describing

    /// The element type and the first elements: `ValueType: Int` then `Values: [1, 2, 3]`.
    public var description: String { describeColumn(storage, failure: failure) }

    /// The same as `description`.
    public var debugDescription: String { description }
}

extension MLDataColumn where Element == Int {
    /// Converts a column of another type: numbers truncate toward zero, text parses; values that
    /// do not convert are missing.
    public init<T: MLDataValueConvertible>(column: MLDataColumn<T>) { self = column.map(to: Int.self) }
}

extension MLDataColumn where Element == Double {
    /// Converts a column of another type: integers widen, text parses; values that do not convert
    /// are missing.
    public init<T: MLDataValueConvertible>(column: MLDataColumn<T>) { self = column.map(to: Double.self) }
}

extension MLDataColumn where Element == String {
    /// Converts a column of another type: every value becomes its text.
    public init<T: MLDataValueConvertible>(column: MLDataColumn<T>) { self = column.map(to: String.self) }
}

extension Array where Element: MLDataValueConvertible {
    /// The elements of a data column, in order; missing elements become `Element()`.
    public init(_ column: MLDataColumn<Element>) {
        self = (0..<column.count).map { column[$0] }
    }
}

extension ColumnStorage {
    /// Row `i` as a `T`, or nil when it is missing or of another kind.
    func element<T: MLDataValueConvertible>(_ i: Int, as: T.Type) -> T? {
        if isMissing(i) { return nil }
        switch values {
        case .int(let a): if let v = a[i] as? T { return v }
        case .double(let a): if let v = a[i] as? T { return v }
        case .string(let a): if let v = a[i] as? T { return v }
        case .boxed: break
        }
        return T(from: self[i])
    }

    /// Whether row `i` of a mask counts as true: a non-zero number that is not missing.
    func isTrue(_ i: Int) -> Bool {
        if isMissing(i) { return false }
        switch values {
        case .int(let a): return a[i] != 0
        case .double(let a): return a[i] != 0
        default: return false
        }
    }
}

/// The positions a mask selects, or nil when its length is not `count`.
func maskIndices(_ mask: ColumnStorage, count: Int) -> [Int]? {
    guard mask.count == count else { return nil }
    if case .int(let a) = mask.values, mask.missing == nil {
        var out: [Int] = []
        out.reserveCapacity(count)
        for i in 0..<count where a[i] != 0 { out.append(i) }
        return out
    }
    return (0..<count).filter { mask.isTrue($0) }
}

/// The row order that sorts a column; missing values last, ties in their original order.
func sortedIndices(_ storage: ColumnStorage, increasing: Bool) -> [Int] {
    let present = storage.presentIndices
    let missing = (0..<storage.count).filter { storage.isMissing($0) }
    let sorted: [Int]
    switch storage.values {
    case .int(let a):
        sorted = present.sorted { x, y in a[x] != a[y] ? (increasing ? a[x] < a[y] : a[x] > a[y]) : x < y }
    case .double(let a):
        sorted = present.sorted { x, y in a[x] != a[y] ? (increasing ? a[x] < a[y] : a[x] > a[y]) : x < y }
    case .string(let a):
        sorted = present.sorted { x, y in a[x] != a[y] ? (increasing ? a[x] < a[y] : a[x] > a[y]) : x < y }
    case .boxed:
        sorted = present.sorted { x, y in
            let c = compareDataValues(storage[x], storage[y]) ?? 0
            return c != 0 ? (increasing ? c < 0 : c > 0) : x < y
        }
    }
    return sorted + missing
}

/// A column's text: its kind, its length, and up to its first 20 values.
func describeColumn(_ storage: ColumnStorage, failure: CreateMLError?) -> String {
    if let failure { return "Invalid column: \(failure.description)" }
    let shown = (0..<Swift.min(storage.count, 20)).map { storage[$0].description }
    let more = storage.count > 20 ? ", … (\(storage.count) values)" : ""
    return "ValueType: \(storage.type)\nValues: [" + shown.joined(separator: ", ") + more + "]"
}
