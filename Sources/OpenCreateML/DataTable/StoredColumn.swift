/// What `MLDataColumn` and `MLUntypedColumn` share: their elements in a `ColumnStorage`, and the
/// error of the operation that made the column when it failed. Selecting rows (a range, a mask, a
/// prefix or suffix) works the same for both, so it is written once here; each type's public
/// subscripts and methods call these.
protocol StoredColumn {
    var storage: ColumnStorage { get }
    var failure: CreateMLError? { get }
    init(storage: ColumnStorage, failure: CreateMLError?)
    /// The type's name, for error messages.
    static var typeName: String { get }
}

extension StoredColumn {
    /// An invalid column that says why.
    static func invalid(_ error: CreateMLError) -> Self { Self(storage: .empty, failure: error) }

    /// The elements at the positions in `bounds`; invalid when the range leaves the column.
    func selecting<R: RangeExpression>(_ bounds: R) -> Self where R.Bound == Int {
        let range = bounds.relative(to: 0..<Int.max)
        guard range.lowerBound >= 0, range.upperBound <= storage.count else {
            return .invalid(CreateMLError(Self.typeName, "rows \(range.lowerBound)..<\(range.upperBound) are out of range 0..<\(storage.count)"))
        }
        return Self(storage: storage.slice(range.lowerBound..<range.upperBound), failure: failure)
    }

    /// The elements whose mask element is true (a non-zero number), in order; invalid when the
    /// mask's length differs. A missing mask element counts as false.
    func selecting(mask: some StoredColumn) -> Self {
        guard let indices = maskIndices(mask.storage, count: storage.count) else {
            return .invalid(CreateMLError(Self.typeName, "the mask has \(mask.storage.count) elements; the column has \(storage.count)"))
        }
        return Self(storage: storage.gather(indices), failure: failure ?? mask.failure)
    }

    /// The first `maxLength` elements (all of them when there are fewer).
    func selectingPrefix(_ maxLength: Int) -> Self {
        Self(storage: storage.slice(0..<Swift.min(Swift.max(maxLength, 0), storage.count)), failure: failure)
    }

    /// The last `maxLength` elements (all of them when there are fewer).
    func selectingSuffix(_ maxLength: Int) -> Self {
        Self(storage: storage.slice(Swift.max(storage.count - Swift.max(maxLength, 0), 0)..<storage.count), failure: failure)
    }
}

extension MLDataColumn: StoredColumn {}
extension MLUntypedColumn: StoredColumn {}
