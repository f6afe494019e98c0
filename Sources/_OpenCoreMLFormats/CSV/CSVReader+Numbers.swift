extension CSVReader {
    /// What a field of a numeric file holds.
    package enum Number: Equatable, Sendable {
        case value(Double)
        /// nan, inf, or too large for a Double.
        case notFinite
        case notANumber
        case empty
    }

    /// The number in a field (surrounding spaces and tabs ignored): an integer without going through
    /// text, else a decimal (`-1.5e3`, `.5`, `3.`); hexadecimal and named values other than
    /// nan/inf/infinity are not numbers.
    package func number(_ span: Span, _ bytes: UnsafeBufferPointer<UInt8>) -> Number {
        let range = trimmed(span, bytes)
        if range.isEmpty { return .empty }
        if let integer = parseInt(span, bytes) { return .value(Double(integer)) }
        guard let value = parseDouble(span, bytes) else { return .notANumber }
        return value.isFinite ? .value(value) : .notFinite
    }

    /// The field's text as an error message shows it: in single quotes, shortened when long.
    package func quoted(_ span: Span, _ bytes: UnsafeBufferPointer<UInt8>) -> String {
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[span.start..<span.end]), as: UTF8.self)
        return "'" + (text.count > 20 ? text.prefix(20) + "…" : text) + "'"
    }

    /// The finite number in field `column` (1-based) of the row that starts at byte `rowStart`;
    /// anything else throws, naming the file, line and column (the line is counted only then).
    package func finiteNumber(_ span: Span, _ bytes: UnsafeBufferPointer<UInt8>, rowStart: Int, column: Int) throws(FormatError) -> Double {
        try number(span, bytes, rowStart: rowStart, column: column, finite: true)
    }

    /// The number in field `column` (1-based) of the row that starts at byte `rowStart`: with
    /// `finite` false, nan, inf and values too large for a Double (±infinity) are numbers too;
    /// anything else throws as ``finiteNumber(_:_:rowStart:column:)`` does.
    package func number(_ span: Span, _ bytes: UnsafeBufferPointer<UInt8>, rowStart: Int, column: Int,
                        finite: Bool) throws(FormatError) -> Double {
        let problem: String
        switch number(span, bytes) {
        case .value(let value): return value
        case .notFinite where !finite: return parseDouble(span, bytes) ?? .nan
        case .notFinite: problem = "\(quoted(span, bytes)) is not a finite number"
        case .notANumber: problem = "\(quoted(span, bytes)) is not a number"
        case .empty: problem = "empty field"
        }
        throw FormatError(location, "line \(line(at: rowStart, in: bytes)), column \(column): \(problem)")
    }

    /// Options for files of numbers only: no header (the caller decides), no missing-value texts
    /// (an empty field is an error there), no escapes; quoted fields and `#` comments are not
    /// special either, so a stray character is reported as not a number.
    package static let numericOptions = CSVOptions(containsHeader: false, escape: "", quote: "", missingValues: [])
}
