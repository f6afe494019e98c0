import Foundation

// Elementwise comparison, logic and arithmetic on typed columns. A comparison yields a
// `MLDataColumn<Bool>` mask; an element compared with a missing element is missing, and a missing
// mask element selects nothing. Columns of different lengths give an invalid column.

/// Compares every row of two columns (or a column and a repeated scalar) into a Boolean mask.
func compareColumns(_ lhs: ColumnStorage, _ rhs: ColumnStorage, _ test: (Int) -> Bool) -> ColumnStorage? {
    let n = lhs.count
    guard rhs.count == n else { return nil }
    var out = [Int](repeating: 0, count: n)
    var missing = [Bool](repeating: false, count: n)
    switch (lhs.values, rhs.values) {
    case (.int(let a), .int(let b)):
        for i in 0..<n { out[i] = test(a[i] < b[i] ? -1 : (a[i] > b[i] ? 1 : 0)) ? 1 : 0 }
    case (.double(let a), .double(let b)):
        for i in 0..<n {
            if a[i].isNaN || b[i].isNaN { out[i] = test(2) ? 1 : 0 } else { out[i] = test(a[i] < b[i] ? -1 : (a[i] > b[i] ? 1 : 0)) ? 1 : 0 }
        }
    case (.string(let a), .string(let b)):
        for i in 0..<n { out[i] = test(a[i] < b[i] ? -1 : (a[i] > b[i] ? 1 : 0)) ? 1 : 0 }
    case (.int, .double), (.double, .int):
        // Integers against doubles: compare as doubles without boxing every element.
        return compareColumns(lhs.converted(to: .double), rhs.converted(to: .double), test)
    default:
        for i in 0..<n {
            // Values that cannot be ordered (a string and a number) are simply unequal.
            let x = lhs[i], y = rhs[i]
            out[i] = test(compareDataValues(x, y) ?? (x == y ? 0 : 2)) ? 1 : 0
        }
    }
    for i in 0..<n where lhs.isMissing(i) || rhs.isMissing(i) { missing[i] = true }
    return ColumnStorage(.int(out), missing: missing)
}

/// How each comparison operator reads the three-way result (2 means "unordered, unequal").
enum ComparisonTest {
    static func equal(_ c: Int) -> Bool { c == 0 }
    static func notEqual(_ c: Int) -> Bool { c != 0 }
    static func less(_ c: Int) -> Bool { c == -1 }
    static func greater(_ c: Int) -> Bool { c == 1 }
    static func lessOrEqual(_ c: Int) -> Bool { c == -1 || c == 0 }
    static func greaterOrEqual(_ c: Int) -> Bool { c == 1 || c == 0 }
}

extension MLDataColumn {
    static func compared(_ lhs: MLDataColumn, _ rhs: MLDataColumn, _ op: String, _ test: (Int) -> Bool) -> MLDataColumn<Bool> {
        guard let result = compareColumns(lhs.storage, rhs.storage, test) else {
            return .invalid(CreateMLError("MLDataColumn \(op)", "the columns have \(lhs.count) and \(rhs.count) elements"))
        }
        return MLDataColumn<Bool>(storage: result, failure: lhs.failure ?? rhs.failure)
    }

    static func compared(_ lhs: MLDataColumn, _ rhs: Element, _ test: (Int) -> Bool) -> MLDataColumn<Bool> {
        let repeated = ColumnStorage.repeating(rhs.dataValue, count: lhs.count)
        return MLDataColumn<Bool>(storage: compareColumns(lhs.storage, repeated, test)!, failure: lhs.failure)
    }

    static func compared(_ lhs: Element, _ rhs: MLDataColumn, _ test: (Int) -> Bool) -> MLDataColumn<Bool> {
        let repeated = ColumnStorage.repeating(lhs.dataValue, count: rhs.count)
        return MLDataColumn<Bool>(storage: compareColumns(repeated, rhs.storage, test)!, failure: rhs.failure)
    }

    /// A mask of the rows where the two columns are equal.
    public static func == (lhs: MLDataColumn, rhs: MLDataColumn) -> MLDataColumn<Bool> { compared(lhs, rhs, "==", ComparisonTest.equal) }
    /// A mask of the rows where the column equals `rhs`.
    public static func == (lhs: MLDataColumn, rhs: Element) -> MLDataColumn<Bool> { compared(lhs, rhs, ComparisonTest.equal) }
    /// A mask of the rows where the column equals `lhs`.
    public static func == (lhs: Element, rhs: MLDataColumn) -> MLDataColumn<Bool> { compared(lhs, rhs, ComparisonTest.equal) }

    /// A mask of the rows where the two columns differ.
    public static func != (lhs: MLDataColumn, rhs: MLDataColumn) -> MLDataColumn<Bool> { compared(lhs, rhs, "!=", ComparisonTest.notEqual) }
    /// A mask of the rows where the column differs from `rhs`.
    public static func != (lhs: MLDataColumn, rhs: Element) -> MLDataColumn<Bool> { compared(lhs, rhs, ComparisonTest.notEqual) }
    /// A mask of the rows where the column differs from `lhs`.
    public static func != (lhs: Element, rhs: MLDataColumn) -> MLDataColumn<Bool> { compared(lhs, rhs, ComparisonTest.notEqual) }

    /// A mask of the rows where the left column is less than the right one.
    public static func < (lhs: MLDataColumn, rhs: MLDataColumn) -> MLDataColumn<Bool> { compared(lhs, rhs, "<", ComparisonTest.less) }
    /// A mask of the rows where the column is less than `rhs`.
    public static func < (lhs: MLDataColumn, rhs: Element) -> MLDataColumn<Bool> { compared(lhs, rhs, ComparisonTest.less) }
    /// A mask of the rows where `lhs` is less than the column.
    public static func < (lhs: Element, rhs: MLDataColumn) -> MLDataColumn<Bool> { compared(lhs, rhs, ComparisonTest.less) }

    /// A mask of the rows where the left column is greater than the right one.
    public static func > (lhs: MLDataColumn, rhs: MLDataColumn) -> MLDataColumn<Bool> { compared(lhs, rhs, ">", ComparisonTest.greater) }
    /// A mask of the rows where the column is greater than `rhs`.
    public static func > (lhs: MLDataColumn, rhs: Element) -> MLDataColumn<Bool> { compared(lhs, rhs, ComparisonTest.greater) }
    /// A mask of the rows where `lhs` is greater than the column.
    public static func > (lhs: Element, rhs: MLDataColumn) -> MLDataColumn<Bool> { compared(lhs, rhs, ComparisonTest.greater) }

    /// A mask of the rows where the left column is at most the right one.
    public static func <= (lhs: MLDataColumn, rhs: MLDataColumn) -> MLDataColumn<Bool> { compared(lhs, rhs, "<=", ComparisonTest.lessOrEqual) }
    /// A mask of the rows where the column is at most `rhs`.
    public static func <= (lhs: MLDataColumn, rhs: Element) -> MLDataColumn<Bool> { compared(lhs, rhs, ComparisonTest.lessOrEqual) }
    /// A mask of the rows where `lhs` is at most the column.
    public static func <= (lhs: Element, rhs: MLDataColumn) -> MLDataColumn<Bool> { compared(lhs, rhs, ComparisonTest.lessOrEqual) }

    /// A mask of the rows where the left column is at least the right one.
    public static func >= (lhs: MLDataColumn, rhs: MLDataColumn) -> MLDataColumn<Bool> { compared(lhs, rhs, ">=", ComparisonTest.greaterOrEqual) }
    /// A mask of the rows where the column is at least `rhs`.
    public static func >= (lhs: MLDataColumn, rhs: Element) -> MLDataColumn<Bool> { compared(lhs, rhs, ComparisonTest.greaterOrEqual) }
    /// A mask of the rows where `lhs` is at least the column.
    public static func >= (lhs: Element, rhs: MLDataColumn) -> MLDataColumn<Bool> { compared(lhs, rhs, ComparisonTest.greaterOrEqual) }
}

/// Combines two masks row by row; a missing element on either side is missing in the result.
func combineMasks(_ lhs: ColumnStorage, _ rhs: ColumnStorage, _ op: (Bool, Bool) -> Bool) -> ColumnStorage? {
    let n = lhs.count
    guard rhs.count == n else { return nil }
    var out = [Int](repeating: 0, count: n)
    var missing = [Bool](repeating: false, count: n)
    for i in 0..<n {
        if lhs.isMissing(i) || rhs.isMissing(i) { missing[i] = true; continue }
        out[i] = op(lhs.isTrue(i), rhs.isTrue(i)) ? 1 : 0
    }
    return ColumnStorage(.int(out), missing: missing)
}

extension MLDataColumn where Element == Bool {
    /// A mask true where both masks are true.
    public static func && (lhs: MLDataColumn<Bool>, rhs: MLDataColumn<Bool>) -> MLDataColumn<Bool> {
        guard let s = combineMasks(lhs.storage, rhs.storage, { $0 && $1 }) else {
            return .invalid(CreateMLError("MLDataColumn &&", "the masks have \(lhs.count) and \(rhs.count) elements"))
        }
        return MLDataColumn(storage: s, failure: lhs.failure ?? rhs.failure)
    }

    /// A mask true where either mask is true.
    public static func || (lhs: MLDataColumn<Bool>, rhs: MLDataColumn<Bool>) -> MLDataColumn<Bool> {
        guard let s = combineMasks(lhs.storage, rhs.storage, { $0 || $1 }) else {
            return .invalid(CreateMLError("MLDataColumn ||", "the masks have \(lhs.count) and \(rhs.count) elements"))
        }
        return MLDataColumn(storage: s, failure: lhs.failure ?? rhs.failure)
    }
}

// MARK: Arithmetic

/// Applies an integer operation row by row; a missing operand, an overflow or a division by zero
/// gives a missing element.
func integerArithmetic(_ a: [Int], _ b: [Int], missing: [Bool]?, _ op: (Int, Int) -> Int?) -> ColumnStorage {
    let n = a.count
    var out = [Int](repeating: 0, count: n)
    var mask = missing ?? [Bool](repeating: false, count: n)
    for i in 0..<n where !mask[i] {
        if let v = op(a[i], b[i]) { out[i] = v } else { mask[i] = true }
    }
    return ColumnStorage(.int(out), missing: mask)
}

func doubleArithmetic(_ a: [Double], _ b: [Double], missing: [Bool]?, _ op: (Double, Double) -> Double) -> ColumnStorage {
    let n = a.count
    var out = [Double](repeating: 0, count: n)
    for i in 0..<n { out[i] = op(a[i], b[i]) }
    return ColumnStorage(.double(out), missing: missing)
}

func unionMissing(_ a: [Bool]?, _ b: [Bool]?) -> [Bool]? {
    switch (a, b) {
    case (nil, nil): return nil
    case (let x?, nil): return x
    case (nil, let y?): return y
    case (let x?, let y?): return zip(x, y).map { $0 || $1 }
    }
}

enum IntegerOperation {
    static func add(_ x: Int, _ y: Int) -> Int? { let r = x.addingReportingOverflow(y); return r.overflow ? nil : r.partialValue }
    static func subtract(_ x: Int, _ y: Int) -> Int? { let r = x.subtractingReportingOverflow(y); return r.overflow ? nil : r.partialValue }
    static func multiply(_ x: Int, _ y: Int) -> Int? { let r = x.multipliedReportingOverflow(by: y); return r.overflow ? nil : r.partialValue }
    static func divide(_ x: Int, _ y: Int) -> Int? { let r = x.dividedReportingOverflow(by: y); return r.overflow ? nil : r.partialValue }
}

extension MLDataColumn where Element == Int {
    static func arithmetic(_ lhs: MLDataColumn, _ rhs: MLDataColumn, _ name: String, _ op: (Int, Int) -> Int?) -> MLDataColumn {
        if let failure = lhs.failure ?? rhs.failure { return .invalid(failure) }
        guard lhs.count == rhs.count, case .int(let a) = lhs.storage.values, case .int(let b) = rhs.storage.values else {
            return .invalid(CreateMLError("MLDataColumn \(name)", "the columns have \(lhs.count) and \(rhs.count) elements"))
        }
        return MLDataColumn(storage: integerArithmetic(a, b, missing: unionMissing(lhs.storage.missing, rhs.storage.missing), op),
                            failure: lhs.failure ?? rhs.failure)
    }

    /// The elementwise sum; an overflowing sum is missing.
    public static func + (lhs: MLDataColumn, rhs: MLDataColumn) -> MLDataColumn { arithmetic(lhs, rhs, "+", IntegerOperation.add) }
    /// Adds `rhs` to every element.
    public static func + (lhs: MLDataColumn, rhs: Int) -> MLDataColumn { arithmetic(lhs, MLDataColumn(repeating: rhs, count: lhs.count), "+", IntegerOperation.add) }
    /// Adds every element to `lhs`.
    public static func + (lhs: Int, rhs: MLDataColumn) -> MLDataColumn { arithmetic(MLDataColumn(repeating: lhs, count: rhs.count), rhs, "+", IntegerOperation.add) }

    /// The elementwise difference; an overflowing difference is missing.
    public static func - (lhs: MLDataColumn, rhs: MLDataColumn) -> MLDataColumn { arithmetic(lhs, rhs, "-", IntegerOperation.subtract) }
    /// Subtracts `rhs` from every element.
    public static func - (lhs: MLDataColumn, rhs: Int) -> MLDataColumn { arithmetic(lhs, MLDataColumn(repeating: rhs, count: lhs.count), "-", IntegerOperation.subtract) }
    /// Subtracts every element from `lhs`.
    public static func - (lhs: Int, rhs: MLDataColumn) -> MLDataColumn { arithmetic(MLDataColumn(repeating: lhs, count: rhs.count), rhs, "-", IntegerOperation.subtract) }

    /// The elementwise product; an overflowing product is missing.
    public static func * (lhs: MLDataColumn, rhs: MLDataColumn) -> MLDataColumn { arithmetic(lhs, rhs, "*", IntegerOperation.multiply) }
    /// Multiplies every element by `rhs`.
    public static func * (lhs: MLDataColumn, rhs: Int) -> MLDataColumn { arithmetic(lhs, MLDataColumn(repeating: rhs, count: lhs.count), "*", IntegerOperation.multiply) }
    /// Multiplies `lhs` by every element.
    public static func * (lhs: Int, rhs: MLDataColumn) -> MLDataColumn { arithmetic(MLDataColumn(repeating: lhs, count: rhs.count), rhs, "*", IntegerOperation.multiply) }

    /// The elementwise integer quotient (truncated toward zero). A division by zero gives a missing
    /// element instead of trapping (ours).
    public static func / (lhs: MLDataColumn, rhs: MLDataColumn) -> MLDataColumn { arithmetic(lhs, rhs, "/", IntegerOperation.divide) }
    /// Divides every element by `rhs`; by zero, every element is missing (ours: no trap).
    public static func / (lhs: MLDataColumn, rhs: Int) -> MLDataColumn { arithmetic(lhs, MLDataColumn(repeating: rhs, count: lhs.count), "/", IntegerOperation.divide) }
    /// Divides `lhs` by every element; a zero element gives a missing element (ours: no trap).
    public static func / (lhs: Int, rhs: MLDataColumn) -> MLDataColumn { arithmetic(MLDataColumn(repeating: lhs, count: rhs.count), rhs, "/", IntegerOperation.divide) }
}

extension MLDataColumn where Element == Double {
    static func arithmetic(_ lhs: MLDataColumn, _ rhs: MLDataColumn, _ name: String, _ op: (Double, Double) -> Double) -> MLDataColumn {
        if let failure = lhs.failure ?? rhs.failure { return .invalid(failure) }
        guard lhs.count == rhs.count, case .double(let a) = lhs.storage.values, case .double(let b) = rhs.storage.values else {
            return .invalid(CreateMLError("MLDataColumn \(name)", "the columns have \(lhs.count) and \(rhs.count) elements"))
        }
        return MLDataColumn(storage: doubleArithmetic(a, b, missing: unionMissing(lhs.storage.missing, rhs.storage.missing), op),
                            failure: lhs.failure ?? rhs.failure)
    }

    /// The elementwise sum.
    public static func + (lhs: MLDataColumn, rhs: MLDataColumn) -> MLDataColumn { arithmetic(lhs, rhs, "+", +) }
    /// Adds `rhs` to every element.
    public static func + (lhs: MLDataColumn, rhs: Double) -> MLDataColumn { arithmetic(lhs, MLDataColumn(repeating: rhs, count: lhs.count), "+", +) }
    /// Adds every element to `lhs`.
    public static func + (lhs: Double, rhs: MLDataColumn) -> MLDataColumn { arithmetic(MLDataColumn(repeating: lhs, count: rhs.count), rhs, "+", +) }

    /// The elementwise difference.
    public static func - (lhs: MLDataColumn, rhs: MLDataColumn) -> MLDataColumn { arithmetic(lhs, rhs, "-", -) }
    /// Subtracts `rhs` from every element.
    public static func - (lhs: MLDataColumn, rhs: Double) -> MLDataColumn { arithmetic(lhs, MLDataColumn(repeating: rhs, count: lhs.count), "-", -) }
    /// Subtracts every element from `lhs`.
    public static func - (lhs: Double, rhs: MLDataColumn) -> MLDataColumn { arithmetic(MLDataColumn(repeating: lhs, count: rhs.count), rhs, "-", -) }

    /// The elementwise product.
    public static func * (lhs: MLDataColumn, rhs: MLDataColumn) -> MLDataColumn { arithmetic(lhs, rhs, "*", *) }
    /// Multiplies every element by `rhs`.
    public static func * (lhs: MLDataColumn, rhs: Double) -> MLDataColumn { arithmetic(lhs, MLDataColumn(repeating: rhs, count: lhs.count), "*", *) }
    /// Multiplies `lhs` by every element.
    public static func * (lhs: Double, rhs: MLDataColumn) -> MLDataColumn { arithmetic(MLDataColumn(repeating: lhs, count: rhs.count), rhs, "*", *) }

    /// The elementwise quotient (IEEE: a division by zero gives an infinity or NaN).
    public static func / (lhs: MLDataColumn, rhs: MLDataColumn) -> MLDataColumn { arithmetic(lhs, rhs, "/", /) }
    /// Divides every element by `rhs`.
    public static func / (lhs: MLDataColumn, rhs: Double) -> MLDataColumn { arithmetic(lhs, MLDataColumn(repeating: rhs, count: lhs.count), "/", /) }
    /// Divides `lhs` by every element.
    public static func / (lhs: Double, rhs: MLDataColumn) -> MLDataColumn { arithmetic(MLDataColumn(repeating: lhs, count: rhs.count), rhs, "/", /) }
}
