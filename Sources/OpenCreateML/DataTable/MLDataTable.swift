import Foundation
import _OpenCoreMLFormats

/// A table of training data: named columns of equal length, each holding one kind of value.
///
/// Read a table from a CSV or JSON file, or build one in memory; then select, filter, split and
/// group its rows:
///
/// ```swift
/// var table = try MLDataTable(contentsOf: URL(fileURLWithPath: "houses.csv"))
/// table.addColumn(table["price"] / table["area"], named: "pricePerArea")
/// let cheap = table[table["price"] < 200_000]
/// let (training, testing) = table.randomSplit(by: 0.8, seed: 5)
/// ```
///
/// Storage is columnar — one Swift array per column — and copy-on-write, so selecting columns or
/// copying a table copies no values. Operations that cannot work and do not throw (a column name
/// that does not exist, masks of the wrong length) do not trap: they give a table or column whose
/// `isValid` is false and whose `error` says why, as in Create ML.
public struct MLDataTable: CustomStringConvertible, Hashable, Sendable {
    var names: [String] {
        didSet { nameIndex = ColumnNameIndex() }
    }
    /// `names` by name, built at the first lookup after they change (a table of 200,000 columns
    /// is looked up once per feature: a search of the names each time would be quadratic).
    private var nameIndex = ColumnNameIndex()
    var columns: [ColumnStorage]
    var rowCount: Int
    var failure: CreateMLError?

    init(names: [String], columns: [ColumnStorage], rowCount: Int, failure: CreateMLError? = nil) {
        self.names = names
        self.columns = columns
        self.rowCount = rowCount
        self.failure = failure
    }

    /// An empty table, with no rows and no columns.
    public init() { self.init(names: [], columns: [], rowCount: 0) }

    /// A table from a dictionary of column names and arrays of values.
    ///
    /// Each value must be an array (`[Int]`, `[Double]`, `[String]`, `[[Double]]`, …) and all arrays
    /// the same length; an array of integers and doubles mixed becomes a double column.
    ///
    /// The columns are ordered by name, since a dictionary has no order (ours: Create ML does not
    /// document an order).
    ///
    /// - Throws: `CreateMLError` naming the column when a value is not an array, the arrays differ
    ///   in length, or an array mixes kinds of values.
    public init(dictionary: [String: any MLDataValueConvertible]) throws {
        var names: [String] = []
        var columns: [ColumnStorage] = []
        var rowCount: Int?
        for name in dictionary.keys.sorted() {
            let column = try Self.columnStorage(of: dictionary[name]!, named: name)
            if let rowCount, column.count != rowCount {
                throw CreateMLError("column \"\(name)\"", "has \(column.count) values, but column \"\(names[0])\" has \(rowCount)")
            }
            rowCount = column.count
            names.append(name)
            columns.append(column)
        }
        self.init(names: names, columns: columns, rowCount: rowCount ?? 0)
    }

    static func columnStorage(of value: any MLDataValueConvertible, named name: String) throws -> ColumnStorage {
        switch value {
        case let a as [Int]: return ColumnStorage(.int(a))
        case let a as [Double]: return ColumnStorage(.double(a))
        case let a as [String]: return ColumnStorage(.string(a))
        case let a as [Float]: return ColumnStorage(.double(a.map(Double.init)))
        case let a as [Bool]: return ColumnStorage(.int(a.map { $0 ? 1 : 0 }))
        default:
            guard case .sequence(let sequence) = value.dataValue else {
                throw CreateMLError("column \"\(name)\"", "expected an array of values, found a single \(type(of: value)) value")
            }
            guard let storage = ColumnStorage.from(values: Array(sequence)) else {
                let kinds = Set(sequence.filter(\.isValid).map(\.type)).map(\.description).sorted()
                throw CreateMLError("column \"\(name)\"", "the values mix kinds (\(kinds.joined(separator: ", ")))")
            }
            return storage
        }
    }

    /// A table from a dictionary of column names and untyped columns, ordered by name (ours:
    /// Create ML does not document an order).
    ///
    /// - Throws: `CreateMLError` naming the column when the columns differ in length or one is
    ///   invalid.
    public init(namedColumns: [String: MLUntypedColumn]) throws {
        var table = MLDataTable()
        for name in namedColumns.keys.sorted() {
            let column = namedColumns[name]!
            if let failure = column.failure { throw CreateMLError("column \"\(name)\"", failure.description) }
            if !table.names.isEmpty, column.count != table.rowCount {
                throw CreateMLError("column \"\(name)\"", "has \(column.count) values, but column \"\(table.names[0])\" has \(table.rowCount)")
            }
            table.insert(column.storage, named: name)
        }
        self = table
    }

    // MARK: Shape

    /// The names of the columns, in order (file order for a table read from a file).
    public var columnNames: MLDataTable.ColumnNames { ColumnNames(names: names) }

    /// The numbers of rows and columns.
    public var size: (rows: Int, columns: Int) { (rowCount, names.count) }

    /// The kind of each column, by name.
    public var columnTypes: [String: MLDataValue.ValueType] {
        Dictionary(uniqueKeysWithValues: zip(names, columns.map(\.type)))
    }

    /// The rows, each a collection of (column name, value) pairs.
    public var rows: MLDataTable.Rows { Rows(table: self) }

    /// Whether the table is usable: false when the operation that made it failed.
    public var isValid: Bool { failure == nil }

    /// Why the table is invalid, or nil when it is valid.
    public var error: Error? { failure }

    /// The first column named `name`.
    func index(of name: String) -> Int? { nameIndex.indices(of: names)[name] }

    /// Each column's index by name (the first, for a repeated name), for code that looks up many
    /// names.
    func columnIndices() -> [String: Int] { nameIndex.indices(of: names) }

    func missingColumnError(_ name: String) -> CreateMLError {
        CreateMLError("column \"\(name)\"", "no such column (the table has \(names.isEmpty ? "no columns" : nameList(names, quoted: true)))")
    }

    func with(_ names: [String], _ columns: [ColumnStorage], rows: Int) -> MLDataTable {
        MLDataTable(names: names, columns: columns, rowCount: rows, failure: failure)
    }

    func invalid(_ error: CreateMLError) -> MLDataTable {
        MLDataTable(names: names, columns: columns, rowCount: rowCount, failure: failure ?? error)
    }

    mutating func insert(_ column: ColumnStorage, named name: String) {
        if names.isEmpty { rowCount = column.count }
        if let i = index(of: name) { columns[i] = column } else {
            names.append(name)
            columns.append(column)
        }
    }

    // MARK: Columns

    /// The column with the given name; reading a name that does not exist gives an invalid
    /// column. Setting adds the column (last) or replaces the one with that name; a column of the
    /// wrong length makes the table invalid instead.
    public subscript(columnName: String) -> MLUntypedColumn {
        get {
            if let failure { return .invalid(failure) }
            guard let i = index(of: columnName) else { return .invalid(missingColumnError(columnName)) }
            return MLUntypedColumn(storage: columns[i])
        }
        set { addColumn(newValue, named: columnName) }
    }

    /// The column with the given name as a typed column; invalid when the name does not exist or
    /// the column's kind is not `T`'s. Setting adds or replaces the column.
    public subscript<T: MLDataValueConvertible>(columnName: String) -> MLDataColumn<T> {
        get {
            if let failure { return .invalid(failure) }
            guard let i = index(of: columnName) else { return .invalid(missingColumnError(columnName)) }
            guard let column = MLUntypedColumn(storage: columns[i]).column(type: T.self) else {
                return .invalid(CreateMLError("column \"\(columnName)\"", "holds \(columns[i].type) values, not \(T.dataValueType)"))
            }
            return column
        }
        set { addColumn(newValue, named: columnName) }
    }

    /// The column with the given name as a typed column, or nil when there is no such column or its
    /// kind is not `T`'s.
    public subscript<T: MLDataValueConvertible>(columnName: String, type: T.Type) -> MLDataColumn<T>? {
        guard isValid, let i = index(of: columnName) else { return nil }
        return MLUntypedColumn(storage: columns[i]).column(type: type)
    }

    /// A table of the named columns, in the order given; invalid when a name does not exist.
    public subscript<S: Sequence>(columnNames: S) -> MLDataTable where S.Element == String {
        var newNames: [String] = []
        var newColumns: [ColumnStorage] = []
        let indices = columnIndices()
        var taken = Set<String>()
        for name in columnNames {
            guard let i = indices[name] else { return invalid(missingColumnError(name)) }
            guard taken.insert(name).inserted else { continue }
            newNames.append(name)
            newColumns.append(columns[i])
        }
        return with(newNames, newColumns, rows: newNames.isEmpty ? 0 : rowCount)
    }

    /// Adds a typed column (last), or replaces the column with that name. A column whose length is
    /// not the table's row count makes the table invalid (the table is left otherwise unchanged).
    public mutating func addColumn<T: MLDataValueConvertible>(_ newColumn: MLDataColumn<T>, named name: String) {
        addStorage(newColumn.storage, failure: newColumn.failure, named: name)
    }

    /// Adds an untyped column (last), or replaces the column with that name. A column whose length
    /// is not the table's row count makes the table invalid (the table is left otherwise unchanged).
    public mutating func addColumn(_ newColumn: MLUntypedColumn, named name: String) {
        addStorage(newColumn.storage, failure: newColumn.failure, named: name)
    }

    mutating func addStorage(_ storage: ColumnStorage, failure columnFailure: CreateMLError?, named name: String) {
        if let columnFailure {
            failure = failure ?? CreateMLError("column \"\(name)\"", "cannot add an invalid column: \(columnFailure.description)")
            return
        }
        let replacesOnlyColumn = names.count == 1 && names[0] == name
        if !names.isEmpty, !replacesOnlyColumn, storage.count != rowCount {
            failure = failure ?? CreateMLError("column \"\(name)\"", "has \(storage.count) values, but the table has \(rowCount) rows")
            return
        }
        if replacesOnlyColumn { rowCount = storage.count }
        insert(storage, named: name)
    }

    /// Removes the named column; a name that does not exist makes the table invalid.
    public mutating func removeColumn(named name: String) {
        guard let i = index(of: name) else {
            failure = failure ?? missingColumnError(name)
            return
        }
        names.remove(at: i)
        columns.remove(at: i)
        if names.isEmpty { rowCount = 0 }
    }

    /// Renames a column, keeping its place; a name that does not exist, or a new name that another
    /// column already has, makes the table invalid.
    public mutating func renameColumn(named oldName: String, to newName: String) {
        guard let i = index(of: oldName) else {
            failure = failure ?? missingColumnError(oldName)
            return
        }
        if oldName == newName { return }
        guard index(of: newName) == nil else {
            failure = failure ?? CreateMLError("column \"\(oldName)\"", "cannot be renamed to \"\(newName)\": a column has that name")
            return
        }
        names[i] = newName
    }

    // MARK: Rows

    func gathering(_ indices: [Int]) -> MLDataTable {
        with(names, columns.map { $0.gather(indices) }, rows: names.isEmpty ? 0 : indices.count)
    }

    /// The rows whose mask element is true, in order; invalid when the mask's length is not the row
    /// count. A missing mask element counts as false.
    public subscript(mask: MLDataColumn<Bool>) -> MLDataTable {
        if let error = mask.failure { return invalid(error) }
        guard let indices = maskIndices(mask.storage, count: rowCount) else {
            return invalid(CreateMLError("MLDataTable", "the mask has \(mask.count) rows; the table has \(rowCount)"))
        }
        return gathering(indices)
    }

    /// The rows whose mask element is a non-zero number, in order; invalid when the mask's length is
    /// not the row count.
    public subscript(mask: MLUntypedColumn) -> MLDataTable {
        if let error = mask.failure { return invalid(error) }
        guard let indices = maskIndices(mask.storage, count: rowCount) else {
            return invalid(CreateMLError("MLDataTable", "the mask has \(mask.count) rows; the table has \(rowCount)"))
        }
        return gathering(indices)
    }

    /// The rows at the given positions; invalid when the range leaves the table.
    public subscript<R: RangeExpression>(bounds: R) -> MLDataTable where R.Bound == Int {
        let range = bounds.relative(to: 0..<Int.max)
        guard range.lowerBound >= 0, range.upperBound <= rowCount else {
            return invalid(CreateMLError("MLDataTable", "rows \(range.lowerBound)..<\(range.upperBound) are out of range 0..<\(rowCount)"))
        }
        let r = range.lowerBound..<range.upperBound
        return with(names, columns.map { $0.slice(r) }, rows: names.isEmpty ? 0 : r.count)
    }

    /// The first `maxLength` rows (all of them when there are fewer).
    public func prefix(_ maxLength: Int) -> MLDataTable { self[0..<Swift.min(Swift.max(maxLength, 0), rowCount)] }

    /// The last `maxLength` rows (all of them when there are fewer).
    public func suffix(_ maxLength: Int) -> MLDataTable { self[Swift.max(rowCount - Swift.max(maxLength, 0), 0)..<rowCount] }

    /// Splits the rows at random into two tables that together hold every row once, in the original
    /// order.
    ///
    /// Each row goes to the first table with probability `proportion` (so the first table's size is
    /// close to, not exactly, `proportion` × rows, as in Create ML). The same seed gives the same
    /// split; our generator is not Create ML's, so the rows chosen for a seed differ from Apple's.
    ///
    /// - Parameters:
    ///   - proportion: The chance, from 0 to 1, that a row goes to the first table. A value outside
    ///     [0, 1] gives two invalid tables (ours: Create ML documents the range but not the failure).
    ///   - seed: The seed of the random generator.
    public func randomSplit(by proportion: Double, seed: Int = 1) -> (MLDataTable, MLDataTable) {
        guard proportion >= 0, proportion <= 1 else {
            let bad = invalid(CreateMLError("randomSplit", "the proportion must lie between 0 and 1, got \(proportion)"))
            return (bad, bad)
        }
        var generator = SeededGenerator(seed: seed)
        var first: [Int] = []
        var second: [Int] = []
        first.reserveCapacity(Int(Double(rowCount) * proportion) + 16)
        for i in 0..<rowCount {
            if generator.unit() < proportion { first.append(i) } else { second.append(i) }
        }
        return (gathering(first), gathering(second))
    }

    /// A random subset of the rows, each kept with probability `proportion`, in the original order.
    /// A proportion outside [0, 1] gives an invalid table.
    public func randomSample(by proportion: Double, seed: Int = 42) -> MLDataTable {
        guard proportion >= 0, proportion <= 1 else {
            return invalid(CreateMLError("randomSample", "the proportion must lie between 0 and 1, got \(proportion)"))
        }
        var generator = SeededGenerator(seed: seed)
        return gathering((0..<rowCount).filter { _ in generator.unit() < proportion })
    }

    /// The rows that have a value in every column.
    public func dropMissing() -> MLDataTable {
        gathering((0..<rowCount).filter { row in !columns.contains { $0.isMissing(row) } })
    }

    /// The table with the missing values of one column replaced by `value`; invalid when the column
    /// does not exist or `value` is of another kind (an integer may fill a double column).
    public func fillMissing(columnNamed name: String, with value: MLDataValue) -> MLDataTable {
        guard let i = index(of: name) else { return invalid(missingColumnError(name)) }
        guard let filled = columns[i].filled(with: value) else {
            return invalid(CreateMLError("column \"\(name)\"", "a \(value.type) value cannot fill a \(columns[i].type) column"))
        }
        var copy = self
        copy.columns[i] = filled
        return copy
    }

    /// The table without repeated rows, keeping each first occurrence in order.
    public func dropDuplicates() -> MLDataTable {
        var seen = Set<[MLDataValue]>()
        return gathering((0..<rowCount).filter { row in seen.insert(columns.map { $0[row] }).inserted })
    }

    /// The rows sorted by one column, increasing or decreasing; missing values go last and equal
    /// values keep their order. Invalid when the column does not exist.
    public func sort(columnNamed name: String, byIncreasingOrder increasing: Bool = true) -> MLDataTable {
        guard let i = index(of: name) else { return invalid(missingColumnError(name)) }
        return gathering(sortedIndices(columns[i], increasing: increasing))
    }

    /// Appends the rows of another table with the same column names (in any order); integer and
    /// double columns combine into doubles. Different column names, or kinds that do not combine,
    /// make the table invalid.
    public mutating func append(contentsOf other: MLDataTable) {
        if let otherFailure = other.failure { failure = failure ?? otherFailure; return }
        if names.isEmpty { self = MLDataTable(names: other.names, columns: other.columns, rowCount: other.rowCount, failure: failure); return }
        if other.names.isEmpty { return }
        guard Set(names) == Set(other.names), names.count == other.names.count else {
            failure = failure ?? CreateMLError("append(contentsOf:)", "the tables have different columns ([\(names.joined(separator: ", "))] and [\(other.names.joined(separator: ", "))])")
            return
        }
        var joined: [ColumnStorage] = []
        for (name, column) in zip(names, columns) {
            guard let combined = column.appending(other.columns[other.index(of: name)!]) else {
                failure = failure ?? CreateMLError("column \"\(name)\"", "cannot append \(other.columns[other.index(of: name)!].type) values to \(column.type) values")
                return
            }
            joined.append(combined)
        }
        columns = joined
        rowCount += other.rowCount
    }

    /// A typed column of `transform` applied to every row.
    public func map<T: MLDataValueConvertible>(_ transform: (MLDataTable.Row) throws -> T) rethrows -> MLDataColumn<T> {
        var out: [T?] = []
        out.reserveCapacity(rowCount)
        for i in 0..<rowCount { out.append(try transform(Row(table: self, index: i))) }
        return MLDataColumn<T>.column(ofOptionals: out).withFailure(failure)
    }

    /// A typed column of `transform` applied to every row; a nil result is missing.
    public func map<T: MLDataValueConvertible>(_ transform: (MLDataTable.Row) throws -> T?) rethrows -> MLDataColumn<T> {
        var out: [T?] = []
        out.reserveCapacity(rowCount)
        for i in 0..<rowCount { out.append(try transform(Row(table: self, index: i))) }
        return MLDataColumn<T>.column(ofOptionals: out).withFailure(failure)
    }

    // MARK: Equality

    /// Whether two tables have the same columns, in the same order, with the same values (and the
    /// same error, if any).
    public static func == (lhs: MLDataTable, rhs: MLDataTable) -> Bool {
        lhs.names == rhs.names && lhs.rowCount == rhs.rowCount && lhs.columns == rhs.columns
            && lhs.failure?.description == rhs.failure?.description
    }

    /// Hashes the column names and values.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(names)
        hasher.combine(rowCount)
        hasher.combine(columns)
    }
}

/// A table's column indices by name, computed once and shared by the copies of the table (a
/// change of names gives the table a new, empty one). Equal to every other, so it takes no part
/// in the table's equality.
final class ColumnNameIndex: Hashable, @unchecked Sendable {
    private let lock = NSLock()
    private var indices: [String: Int]?

    func indices(of names: [String]) -> [String: Int] {
        lock.lock()
        defer { lock.unlock() }
        if let indices { return indices }
        var built: [String: Int] = [:]
        built.reserveCapacity(names.count)
        for (i, name) in names.enumerated() where built[name] == nil { built[name] = i }
        indices = built
        return built
    }

    static func == (lhs: ColumnNameIndex, rhs: ColumnNameIndex) -> Bool { true }
    func hash(into hasher: inout Hasher) {}
}
