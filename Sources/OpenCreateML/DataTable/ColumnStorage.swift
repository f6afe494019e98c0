import Foundation

/// The values of one column, held columnar: one Swift array per column, plus a mask of missing rows.
///
/// Integer, floating-point and string columns keep unboxed arrays; the other kinds (sequences,
/// dictionaries, multidimensional arrays, and columns that hold nothing but missing values) keep
/// boxed `MLDataValue`s, in which a missing element is `.invalid`. Every operation that makes a new
/// column (`gather`, `slice`, …) copies only the rows it keeps.
struct ColumnStorage: Hashable, Sendable {
    enum Values: Hashable, Sendable {
        case int([Int])
        case double([Double])
        case string([String])
        /// Boxed values of one kind (`type`); `.invalid` elements are the missing ones.
        case boxed([MLDataValue], MLDataValue.ValueType)
    }

    var values: Values
    /// `missing[i]` is true when row `i` has no value; nil when no row is missing. Unused (nil) for
    /// boxed values, whose missing rows are `.invalid`.
    var missing: [Bool]?

    init(_ values: Values, missing: [Bool]? = nil) {
        self.values = values
        if let missing, missing.contains(true) { self.missing = missing } else { self.missing = nil }
    }

    static let empty = ColumnStorage(.boxed([], .invalid))

    var count: Int {
        switch values {
        case .int(let a): return a.count
        case .double(let a): return a.count
        case .string(let a): return a.count
        case .boxed(let a, _): return a.count
        }
    }

    var type: MLDataValue.ValueType {
        switch values {
        case .int: return .int
        case .double: return .double
        case .string: return .string
        case .boxed(_, let type): return type
        }
    }

    func isMissing(_ i: Int) -> Bool {
        if case .boxed(let a, _) = values { return a[i] == .invalid }
        return missing?[i] ?? false
    }

    var missingCount: Int {
        if case .boxed(let a, _) = values { return a.reduce(0) { $0 + ($1 == .invalid ? 1 : 0) } }
        return missing?.reduce(0) { $0 + ($1 ? 1 : 0) } ?? 0
    }

    subscript(i: Int) -> MLDataValue {
        if isMissing(i) { return .invalid }
        switch values {
        case .int(let a): return .int(a[i])
        case .double(let a): return .double(a[i])
        case .string(let a): return .string(a[i])
        case .boxed(let a, _): return a[i]
        }
    }

    // MARK: Building

    /// A column from boxed values: unboxed when every valid value is an `Int`, a `Double` (ints
    /// widen), or a `String`; otherwise boxed. Nil when valid values of unrelated kinds are mixed.
    static func from(values: [MLDataValue]) -> ColumnStorage? {
        var kind: MLDataValue.ValueType = .invalid
        for value in values where value.isValid {
            let t = value.type
            if kind == .invalid { kind = t } else if kind != t {
                if (kind == .int && t == .double) || (kind == .double && t == .int) { kind = .double } else { return nil }
            }
        }
        let missing = values.map { !$0.isValid }
        switch kind {
        case .int: return ColumnStorage(.int(values.map { $0.intValue ?? 0 }), missing: missing)
        case .double:
            return ColumnStorage(.double(values.map { v in v.doubleValue ?? v.intValue.map(Double.init) ?? 0 }), missing: missing)
        case .string: return ColumnStorage(.string(values.map { $0.stringValue ?? "" }), missing: missing)
        default: return ColumnStorage(.boxed(values, kind))
        }
    }

    static func repeating(_ value: MLDataValue, count: Int) -> ColumnStorage {
        switch value {
        case .int(let v): return ColumnStorage(.int(Array(repeating: v, count: count)))
        case .double(let v): return ColumnStorage(.double(Array(repeating: v, count: count)))
        case .string(let v): return ColumnStorage(.string(Array(repeating: v, count: count)))
        default: return ColumnStorage(.boxed(Array(repeating: value, count: count), value.type))
        }
    }

    /// `count` missing values in a column of kind `type`.
    static func allMissing(_ type: MLDataValue.ValueType, count: Int) -> ColumnStorage {
        let mask = Array(repeating: true, count: count)
        switch type {
        case .int: return ColumnStorage(.int(Array(repeating: 0, count: count)), missing: mask)
        case .double: return ColumnStorage(.double(Array(repeating: 0, count: count)), missing: mask)
        case .string: return ColumnStorage(.string(Array(repeating: "", count: count)), missing: mask)
        default: return ColumnStorage(.boxed(Array(repeating: .invalid, count: count), type))
        }
    }

    /// All values, boxed (missing ones as `.invalid`).
    var boxedValues: [MLDataValue] { (0..<count).map { self[$0] } }

    // MARK: Selecting rows

    /// The rows at `indices`, in that order.
    func gather(_ indices: [Int]) -> ColumnStorage {
        let mask = missing.map { m in indices.map { m[$0] } }
        switch values {
        case .int(let a): return ColumnStorage(.int(indices.map { a[$0] }), missing: mask)
        case .double(let a): return ColumnStorage(.double(indices.map { a[$0] }), missing: mask)
        case .string(let a): return ColumnStorage(.string(indices.map { a[$0] }), missing: mask)
        case .boxed(let a, let t): return ColumnStorage(.boxed(indices.map { a[$0] }, t))
        }
    }

    func slice(_ range: Range<Int>) -> ColumnStorage {
        let mask = missing.map { Array($0[range]) }
        switch values {
        case .int(let a): return ColumnStorage(.int(Array(a[range])), missing: mask)
        case .double(let a): return ColumnStorage(.double(Array(a[range])), missing: mask)
        case .string(let a): return ColumnStorage(.string(Array(a[range])), missing: mask)
        case .boxed(let a, let t): return ColumnStorage(.boxed(Array(a[range]), t))
        }
    }

    /// This column followed by `other`; ints widen to doubles when the two differ so, and any
    /// other mismatch boxes the values. Nil when the kinds cannot share a column.
    func appending(_ other: ColumnStorage) -> ColumnStorage? {
        if count == 0 { return other }
        if other.count == 0 { return self }
        let mask: [Bool]? = (missing == nil && other.missing == nil) ? nil
            : (missing ?? Array(repeating: false, count: count)) + (other.missing ?? Array(repeating: false, count: other.count))
        switch (values, other.values) {
        case (.int(let a), .int(let b)): return ColumnStorage(.int(a + b), missing: mask)
        case (.double(let a), .double(let b)): return ColumnStorage(.double(a + b), missing: mask)
        case (.int(let a), .double(let b)): return ColumnStorage(.double(a.map(Double.init) + b), missing: mask)
        case (.double(let a), .int(let b)): return ColumnStorage(.double(a + b.map(Double.init)), missing: mask)
        case (.string(let a), .string(let b)): return ColumnStorage(.string(a + b), missing: mask)
        default:
            return ColumnStorage.from(values: boxedValues + other.boxedValues)
        }
    }

    /// The same values with every missing row replaced by `value` (when the kinds fit).
    func filled(with value: MLDataValue) -> ColumnStorage? {
        guard value.isValid else { return self }
        switch values {
        case .boxed(let a, let t):
            guard t == .invalid || t == value.type else { return nil }
            return ColumnStorage(.boxed(a.map { $0.isValid ? $0 : value }, value.type))
        default:
            guard let missing else { return self }
            switch (values, value) {
            case (.int(var a), .int(let v)):
                for i in a.indices where missing[i] { a[i] = v }
                return ColumnStorage(.int(a))
            case (.double(var a), _):
                guard let v = value.doubleValue ?? value.intValue.map(Double.init) else { return nil }
                for i in a.indices where missing[i] { a[i] = v }
                return ColumnStorage(.double(a))
            case (.string(var a), .string(let v)):
                for i in a.indices where missing[i] { a[i] = v }
                return ColumnStorage(.string(a))
            default: return nil
            }
        }
    }

    /// The indices of the rows that have a value.
    var presentIndices: [Int] { (0..<count).filter { !isMissing($0) } }

    // MARK: Conversion

    /// The values converted to `type`, the way `MLUntypedColumn.map(to:)` converts: numbers widen or
    /// truncate, numbers print as strings, strings parse as numbers; what does not convert is
    /// missing.
    func converted(to type: MLDataValue.ValueType) -> ColumnStorage {
        if type == self.type { return self }
        let n = count
        switch (values, type) {
        case (.int(let a), .double): return ColumnStorage(.double(a.map(Double.init)), missing: missing)
        case (.int(let a), .string): return ColumnStorage(.string(a.map(String.init)), missing: missing)
        case (.double(let a), .int):
            var mask = missing ?? Array(repeating: false, count: n)
            var out = [Int](repeating: 0, count: n)
            for i in 0..<n where !mask[i] {
                if let v = Int(exactly: a[i].rounded(.towardZero)) { out[i] = v } else { mask[i] = true }
            }
            return ColumnStorage(.int(out), missing: mask)
        case (.double(let a), .string): return ColumnStorage(.string(a.map { "\($0)" }), missing: missing)
        case (.string(let a), .int):
            var mask = missing ?? Array(repeating: false, count: n)
            var out = [Int](repeating: 0, count: n)
            for i in 0..<n where !mask[i] {
                if let v = Int(a[i].trimmingCharacters(in: .whitespaces)) { out[i] = v } else { mask[i] = true }
            }
            return ColumnStorage(.int(out), missing: mask)
        case (.string(let a), .double):
            var mask = missing ?? Array(repeating: false, count: n)
            var out = [Double](repeating: 0, count: n)
            for i in 0..<n where !mask[i] {
                if let v = Double(a[i].trimmingCharacters(in: .whitespaces)) { out[i] = v } else { mask[i] = true }
            }
            return ColumnStorage(.double(out), missing: mask)
        default:
            // Boxed kinds: keep what already has the kind, strings print anything; the rest is missing.
            let converted: [MLDataValue] = (0..<n).map { i in
                let v = self[i]
                if v.type == type { return v }
                if type == .string, v.isValid { return .string(v.description) }
                return .invalid
            }
            switch type {
            case .int, .double, .string:
                if let s = ColumnStorage.from(values: converted), s.type == type { return s }
                return ColumnStorage.allMissing(type, count: n)
            default: return ColumnStorage(.boxed(converted, type))
            }
        }
    }
}

/// Orders two data values: numbers by value (ints and doubles compare with each other), strings
/// lexicographically by their Unicode scalars; nil when the two are not comparable or either is
/// missing.
func compareDataValues(_ a: MLDataValue, _ b: MLDataValue) -> Int? {
    switch (a, b) {
    case (.int(let x), .int(let y)): return x < y ? -1 : (x > y ? 1 : 0)
    case (.string(let x), .string(let y)): return x < y ? -1 : (x > y ? 1 : 0)
    default:
        guard let x = a.doubleValue ?? a.intValue.map(Double.init), let y = b.doubleValue ?? b.intValue.map(Double.init) else {
            return nil
        }
        return x < y ? -1 : (x > y ? 1 : 0)
    }
}

/// A small deterministic generator (SplitMix64) for seeded splits and samples, so that a seed gives
/// the same rows on every platform.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: Int) { state = UInt64(bitPattern: Int64(seed)) &+ 0x9E37_79B9_7F4A_7C15 }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
