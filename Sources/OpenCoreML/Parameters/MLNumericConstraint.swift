import Foundation

/// The values a numeric parameter may take: a range, and for some parameters an explicit set.
public final class MLNumericConstraint: @unchecked Sendable, CustomStringConvertible {
    /// The smallest allowed value (for a set, its smallest member).
    public let minNumber: NSNumber
    /// The largest allowed value (for a set, its largest member).
    public let maxNumber: NSNumber
    /// The allowed values when the model lists them; nil for a range.
    public let enumeratedNumbers: Set<NSNumber>?

    init(minNumber: NSNumber, maxNumber: NSNumber, enumeratedNumbers: Set<NSNumber>? = nil) {
        self.minNumber = minNumber
        self.maxNumber = maxNumber
        self.enumeratedNumbers = enumeratedNumbers
    }

    /// Whether `value` satisfies the constraint.
    public func allows(_ value: Double) -> Bool {
        if let enumerated = enumeratedNumbers {
            return enumerated.contains { $0.doubleValue == value }
        }
        return minNumber.doubleValue <= value && value <= maxNumber.doubleValue
    }

    /// The allowed values, such as `0 ... 1` or `one of 16, 32, 64`.
    public var description: String {
        if let enumerated = enumeratedNumbers {
            return "one of " + enumerated.map(\.doubleValue).sorted().map { formatNumber($0) }.joined(separator: ", ")
        }
        return "\(formatNumber(minNumber.doubleValue)) ... \(formatNumber(maxNumber.doubleValue))"
    }
}

func formatNumber(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
}
