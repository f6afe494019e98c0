import Foundation

// Elementwise comparison, logic and arithmetic on untyped columns. Comparisons give an integer
// column of 1 (true) and 0 (false) that filters a table; an element compared with a missing
// element is missing. Arithmetic works on numbers (an integer with a double gives a double) and
// `+` also joins strings. Columns of different lengths, or kinds that do not combine, give an
// invalid column.

extension MLUntypedColumn {
    static func compared(_ lhs: ColumnStorage, _ rhs: ColumnStorage, _ failure: CreateMLError?, _ op: String, _ test: (Int) -> Bool) -> MLUntypedColumn {
        if let failure { return .invalid(failure) }
        guard let s = compareColumns(lhs, rhs, test) else {
            return .invalid(CreateMLError("MLUntypedColumn \(op)", "the columns have \(lhs.count) and \(rhs.count) elements"))
        }
        return MLUntypedColumn(storage: s)
    }

    static func repeated(_ value: any MLDataValueConvertible, count: Int) -> ColumnStorage {
        ColumnStorage.repeating(value.dataValue, count: count)
    }

    /// A mask (1 or 0) of the rows where the two columns are equal.
    public static func == (lhs: MLUntypedColumn, rhs: MLUntypedColumn) -> MLUntypedColumn {
        compared(lhs.storage, rhs.storage, lhs.failure ?? rhs.failure, "==", ComparisonTest.equal)
    }
    /// A mask of the rows where the column equals `rhs`.
    public static func == (lhs: MLUntypedColumn, rhs: any MLDataValueConvertible) -> MLUntypedColumn {
        compared(lhs.storage, repeated(rhs, count: lhs.count), lhs.failure, "==", ComparisonTest.equal)
    }
    /// A mask of the rows where the column equals `lhs`.
    public static func == (lhs: any MLDataValueConvertible, rhs: MLUntypedColumn) -> MLUntypedColumn {
        compared(repeated(lhs, count: rhs.count), rhs.storage, rhs.failure, "==", ComparisonTest.equal)
    }

    /// A mask of the rows where the two columns differ.
    public static func != (lhs: MLUntypedColumn, rhs: MLUntypedColumn) -> MLUntypedColumn {
        compared(lhs.storage, rhs.storage, lhs.failure ?? rhs.failure, "!=", ComparisonTest.notEqual)
    }
    /// A mask of the rows where the column differs from `rhs`.
    public static func != (lhs: MLUntypedColumn, rhs: any MLDataValueConvertible) -> MLUntypedColumn {
        compared(lhs.storage, repeated(rhs, count: lhs.count), lhs.failure, "!=", ComparisonTest.notEqual)
    }
    /// A mask of the rows where the column differs from `lhs`.
    public static func != (lhs: any MLDataValueConvertible, rhs: MLUntypedColumn) -> MLUntypedColumn {
        compared(repeated(lhs, count: rhs.count), rhs.storage, rhs.failure, "!=", ComparisonTest.notEqual)
    }

    /// A mask of the rows where the left column is less than the right one.
    public static func < (lhs: MLUntypedColumn, rhs: MLUntypedColumn) -> MLUntypedColumn {
        compared(lhs.storage, rhs.storage, lhs.failure ?? rhs.failure, "<", ComparisonTest.less)
    }
    /// A mask of the rows where the column is less than `rhs`.
    public static func < (lhs: MLUntypedColumn, rhs: any MLDataValueConvertible) -> MLUntypedColumn {
        compared(lhs.storage, repeated(rhs, count: lhs.count), lhs.failure, "<", ComparisonTest.less)
    }
    /// A mask of the rows where `lhs` is less than the column.
    public static func < (lhs: any MLDataValueConvertible, rhs: MLUntypedColumn) -> MLUntypedColumn {
        compared(repeated(lhs, count: rhs.count), rhs.storage, rhs.failure, "<", ComparisonTest.less)
    }

    /// A mask of the rows where the left column is greater than the right one.
    public static func > (lhs: MLUntypedColumn, rhs: MLUntypedColumn) -> MLUntypedColumn {
        compared(lhs.storage, rhs.storage, lhs.failure ?? rhs.failure, ">", ComparisonTest.greater)
    }
    /// A mask of the rows where the column is greater than `rhs`.
    public static func > (lhs: MLUntypedColumn, rhs: any MLDataValueConvertible) -> MLUntypedColumn {
        compared(lhs.storage, repeated(rhs, count: lhs.count), lhs.failure, ">", ComparisonTest.greater)
    }
    /// A mask of the rows where `lhs` is greater than the column.
    public static func > (lhs: any MLDataValueConvertible, rhs: MLUntypedColumn) -> MLUntypedColumn {
        compared(repeated(lhs, count: rhs.count), rhs.storage, rhs.failure, ">", ComparisonTest.greater)
    }

    /// A mask of the rows where the left column is at most the right one.
    public static func <= (lhs: MLUntypedColumn, rhs: MLUntypedColumn) -> MLUntypedColumn {
        compared(lhs.storage, rhs.storage, lhs.failure ?? rhs.failure, "<=", ComparisonTest.lessOrEqual)
    }
    /// A mask of the rows where the column is at most `rhs`.
    public static func <= (lhs: MLUntypedColumn, rhs: any MLDataValueConvertible) -> MLUntypedColumn {
        compared(lhs.storage, repeated(rhs, count: lhs.count), lhs.failure, "<=", ComparisonTest.lessOrEqual)
    }
    /// A mask of the rows where `lhs` is at most the column.
    public static func <= (lhs: any MLDataValueConvertible, rhs: MLUntypedColumn) -> MLUntypedColumn {
        compared(repeated(lhs, count: rhs.count), rhs.storage, rhs.failure, "<=", ComparisonTest.lessOrEqual)
    }

    /// A mask of the rows where the left column is at least the right one.
    public static func >= (lhs: MLUntypedColumn, rhs: MLUntypedColumn) -> MLUntypedColumn {
        compared(lhs.storage, rhs.storage, lhs.failure ?? rhs.failure, ">=", ComparisonTest.greaterOrEqual)
    }
    /// A mask of the rows where the column is at least `rhs`.
    public static func >= (lhs: MLUntypedColumn, rhs: any MLDataValueConvertible) -> MLUntypedColumn {
        compared(lhs.storage, repeated(rhs, count: lhs.count), lhs.failure, ">=", ComparisonTest.greaterOrEqual)
    }
    /// A mask of the rows where `lhs` is at least the column.
    public static func >= (lhs: any MLDataValueConvertible, rhs: MLUntypedColumn) -> MLUntypedColumn {
        compared(repeated(lhs, count: rhs.count), rhs.storage, rhs.failure, ">=", ComparisonTest.greaterOrEqual)
    }

    // MARK: Logic

    /// A mask true (1) where both masks hold a non-zero number.
    public static func && (lhs: MLUntypedColumn, rhs: MLUntypedColumn) -> MLUntypedColumn {
        if let failure = lhs.failure ?? rhs.failure { return .invalid(failure) }
        guard let s = combineMasks(lhs.storage, rhs.storage, { $0 && $1 }) else {
            return .invalid(CreateMLError("MLUntypedColumn &&", "the masks have \(lhs.count) and \(rhs.count) elements"))
        }
        return MLUntypedColumn(storage: s)
    }

    /// A mask true (1) where either mask holds a non-zero number.
    public static func || (lhs: MLUntypedColumn, rhs: MLUntypedColumn) -> MLUntypedColumn {
        if let failure = lhs.failure ?? rhs.failure { return .invalid(failure) }
        guard let s = combineMasks(lhs.storage, rhs.storage, { $0 || $1 }) else {
            return .invalid(CreateMLError("MLUntypedColumn ||", "the masks have \(lhs.count) and \(rhs.count) elements"))
        }
        return MLUntypedColumn(storage: s)
    }

    // MARK: Arithmetic

    enum Arithmetic: String {
        case add = "+", subtract = "-", multiply = "*", divide = "/"
    }

    static func combined(_ lhs: ColumnStorage, _ rhs: ColumnStorage, _ failure: CreateMLError?, _ op: Arithmetic) -> MLUntypedColumn {
        if let failure { return .invalid(failure) }
        guard lhs.count == rhs.count else {
            return .invalid(CreateMLError("MLUntypedColumn \(op.rawValue)", "the columns have \(lhs.count) and \(rhs.count) elements"))
        }
        let missing = unionMissing(lhs.missing, rhs.missing)
        switch (lhs.values, rhs.values) {
        case (.int(let a), .int(let b)):
            let f: (Int, Int) -> Int? = switch op {
            case .add: IntegerOperation.add
            case .subtract: IntegerOperation.subtract
            case .multiply: IntegerOperation.multiply
            case .divide: IntegerOperation.divide
            }
            return MLUntypedColumn(storage: integerArithmetic(a, b, missing: missing, f))
        case (.int, .double), (.double, .int), (.double, .double):
            guard case .double(let a) = lhs.converted(to: .double).values, case .double(let b) = rhs.converted(to: .double).values else {
                return .invalid(CreateMLError("MLUntypedColumn \(op.rawValue)", "cannot combine the columns"))
            }
            let f: (Double, Double) -> Double = switch op {
            case .add: (+)
            case .subtract: (-)
            case .multiply: (*)
            case .divide: (/)
            }
            return MLUntypedColumn(storage: doubleArithmetic(a, b, missing: missing, f))
        case (.string(let a), .string(let b)) where op == .add:
            return MLUntypedColumn(storage: ColumnStorage(.string(zip(a, b).map { $0 + $1 }), missing: missing))
        default:
            return .invalid(CreateMLError("MLUntypedColumn \(op.rawValue)", "cannot apply \(op.rawValue) to \(lhs.type) and \(rhs.type) values"))
        }
    }

    /// The elementwise sum (integers stay integers; with a double, doubles; strings join).
    public static func + (lhs: MLUntypedColumn, rhs: MLUntypedColumn) -> MLUntypedColumn { combined(lhs.storage, rhs.storage, lhs.failure ?? rhs.failure, .add) }
    /// Adds `rhs` to every element.
    public static func + (lhs: MLUntypedColumn, rhs: any MLDataValueConvertible) -> MLUntypedColumn { combined(lhs.storage, repeated(rhs, count: lhs.count), lhs.failure, .add) }
    /// Adds every element to `lhs`.
    public static func + (lhs: any MLDataValueConvertible, rhs: MLUntypedColumn) -> MLUntypedColumn { combined(repeated(lhs, count: rhs.count), rhs.storage, rhs.failure, .add) }

    /// The elementwise difference.
    public static func - (lhs: MLUntypedColumn, rhs: MLUntypedColumn) -> MLUntypedColumn { combined(lhs.storage, rhs.storage, lhs.failure ?? rhs.failure, .subtract) }
    /// Subtracts `rhs` from every element.
    public static func - (lhs: MLUntypedColumn, rhs: any MLDataValueConvertible) -> MLUntypedColumn { combined(lhs.storage, repeated(rhs, count: lhs.count), lhs.failure, .subtract) }
    /// Subtracts every element from `lhs`.
    public static func - (lhs: any MLDataValueConvertible, rhs: MLUntypedColumn) -> MLUntypedColumn { combined(repeated(lhs, count: rhs.count), rhs.storage, rhs.failure, .subtract) }

    /// The elementwise product.
    public static func * (lhs: MLUntypedColumn, rhs: MLUntypedColumn) -> MLUntypedColumn { combined(lhs.storage, rhs.storage, lhs.failure ?? rhs.failure, .multiply) }
    /// Multiplies every element by `rhs`.
    public static func * (lhs: MLUntypedColumn, rhs: any MLDataValueConvertible) -> MLUntypedColumn { combined(lhs.storage, repeated(rhs, count: lhs.count), lhs.failure, .multiply) }
    /// Multiplies `lhs` by every element.
    public static func * (lhs: any MLDataValueConvertible, rhs: MLUntypedColumn) -> MLUntypedColumn { combined(repeated(lhs, count: rhs.count), rhs.storage, rhs.failure, .multiply) }

    /// The elementwise quotient: integers divide with truncation (a division by zero is missing,
    /// ours: no trap), doubles divide in IEEE arithmetic.
    public static func / (lhs: MLUntypedColumn, rhs: MLUntypedColumn) -> MLUntypedColumn { combined(lhs.storage, rhs.storage, lhs.failure ?? rhs.failure, .divide) }
    /// Divides every element by `rhs`.
    public static func / (lhs: MLUntypedColumn, rhs: any MLDataValueConvertible) -> MLUntypedColumn { combined(lhs.storage, repeated(rhs, count: lhs.count), lhs.failure, .divide) }
    /// Divides `lhs` by every element.
    public static func / (lhs: any MLDataValueConvertible, rhs: MLUntypedColumn) -> MLUntypedColumn { combined(repeated(lhs, count: rhs.count), rhs.storage, rhs.failure, .divide) }
}
