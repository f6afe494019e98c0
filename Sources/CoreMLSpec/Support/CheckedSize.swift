// Sizes that come from outside — a model file's shapes, channel counts, kernel sizes and image
// sizes, an array file's header, a command-line option — are converted and multiplied here, and
// nowhere else with plain `Int(_:)` or `*`: a hostile file must get an error, never a trap.
//
// Each check has two forms: one returns nil (for code that reports in its own words or returns an
// optional), the other throws a `ModelValidationError` naming where the size was read (the layer,
// the input) and which field it is.

/// `value` as an `Int` when it is a size: not negative, and at most `limit`; nil otherwise
/// (a negative `Int64`, a `UInt64` past `Int.max`, a size past the limit).
///
/// ```swift
/// checkedSize(UInt64(3))          // 3
/// checkedSize(UInt64.max)         // nil
/// checkedSize(Int64(-1))          // nil
/// ```
package func checkedSize(_ value: some BinaryInteger, limit: Int = .max) -> Int? {
    guard let size = Int(exactly: value), size >= 0, size <= limit else { return nil }
    return size
}

/// `value` as an `Int` when it is a size, or a `ModelValidationError` at `location` saying that
/// the field `what` is negative or too large.
package func checkedSize(
    _ value: some BinaryInteger, limit: Int = .max, what: String, where location: String
) throws(ModelValidationError) -> Int {
    guard let size = checkedSize(value, limit: limit) else {
        throw ModelValidationError(location: location, message: SizeCheckFailure.size(value, limit: limit, what: what))
    }
    return size
}

/// The product of `sizes` (1 for none), nil when one of them is negative or does not fit an
/// `Int`, or when the product overflows.
///
/// ```swift
/// checkedProduct([2, 3, 4] as [UInt64])      // 24
/// checkedProduct([1 << 40, 1 << 40] as [Int]) // nil
/// ```
package func checkedProduct<S: Sequence>(_ sizes: S) -> Int? where S.Element: BinaryInteger {
    var result = 1
    for size in sizes {
        guard let factor = checkedSize(size) else { return nil }
        let (product, overflow) = result.multipliedReportingOverflow(by: factor)
        if overflow { return nil }
        result = product
    }
    return result
}

/// The product of `sizes`, or a `ModelValidationError` at `location` saying that the field
/// `what` holds a negative size or more elements than an `Int` can count.
package func checkedProduct<S: Sequence>(
    _ sizes: S, what: String, where location: String
) throws(ModelValidationError) -> Int where S.Element: BinaryInteger {
    guard let product = checkedProduct(sizes) else {
        throw ModelValidationError(location: location, message: SizeCheckFailure.product(Array(sizes), what: what))
    }
    return product
}

/// The words of the size checks' errors, shared by callers that report in their own error type.
package enum SizeCheckFailure {
    /// Why `value` is not a size of the field `what`.
    package static func size(_ value: some BinaryInteger, limit: Int = .max, what: String) -> String {
        value < 0 ? "\(what) \(value) is negative"
            : "\(what) \(value) is too large (at most \(limit))"
    }

    /// Why `sizes` have no product for the field `what`.
    package static func product<T: BinaryInteger>(_ sizes: [T], what: String) -> String {
        let shown = sizes.map { "\($0)" }.joined(separator: " × ")
        if let negative = sizes.first(where: { $0 < 0 }) {
            return "\(what) \(shown) has a negative size (\(negative))"
        }
        return "\(what) \(shown) holds more elements than a 64-bit count can hold"
    }
}
