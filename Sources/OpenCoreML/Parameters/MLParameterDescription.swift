import CoreMLSpec
import Foundation

/// A parameter of the model: its key, default value and allowed values.
public final class MLParameterDescription: @unchecked Sendable, CustomStringConvertible {
    /// The parameter's key.
    public let key: MLParameterKey
    /// `Double`, `Int` or `Bool`.
    public let defaultValue: Any
    /// The values the parameter may take; nil for a Boolean parameter or one without limits.
    public let numericConstraint: MLNumericConstraint?

    init(key: MLParameterKey, defaultValue: Any, numericConstraint: MLNumericConstraint? = nil) {
        self.key = key
        self.defaultValue = defaultValue
        self.numericConstraint = numericConstraint
    }

    convenience init(_ key: MLParameterKey, _ parameter: CoreML_Specification_DoubleParameter) {
        var constraint: MLNumericConstraint?
        if case .range(let range)? = parameter.allowedValues {
            constraint = MLNumericConstraint(minNumber: NSNumber(value: range.minValue), maxNumber: NSNumber(value: range.maxValue))
        }
        self.init(key: key, defaultValue: parameter.defaultValue, numericConstraint: constraint)
    }

    convenience init(_ key: MLParameterKey, _ parameter: CoreML_Specification_Int64Parameter) {
        var constraint: MLNumericConstraint?
        switch parameter.allowedValues {
        case .range(let range)?:
            constraint = MLNumericConstraint(minNumber: NSNumber(value: range.minValue), maxNumber: NSNumber(value: range.maxValue))
        case .set(let set)?:
            constraint = MLNumericConstraint(
                minNumber: NSNumber(value: set.values.min() ?? 0), maxNumber: NSNumber(value: set.values.max() ?? 0),
                enumeratedNumbers: Set(set.values.map { NSNumber(value: $0) }))
        case nil:
            break
        }
        self.init(key: key, defaultValue: Int(parameter.defaultValue), numericConstraint: constraint)
    }

    /// Checks a value given for this parameter (in a configuration or an update) and returns it
    /// converted to the parameter's type, or throws an error naming the parameter and the allowed values.
    func accept(_ value: Any) throws -> Any {
        func reject(_ reason: String) -> MLModelError {
            MLModelError(.parameters, "parameter '\(key.name)': \(reason)")
        }
        switch defaultValue {
        case is Bool:
            guard let bool = value as? Bool else { throw reject("expected true or false, got \(value)") }
            return bool
        case is Int:
            guard let number = numericValue(value), number == number.rounded(), abs(number) < 9e18 else {
                throw reject("expected a whole number, got \(value)")
            }
            if let constraint = numericConstraint, !constraint.allows(number) {
                throw reject("\(formatNumber(number)) is not allowed; the model allows \(constraint)")
            }
            return Int(number)
        default:
            guard let number = numericValue(value), number.isFinite else { throw reject("expected a finite number, got \(value)") }
            if let constraint = numericConstraint, !constraint.allows(number) {
                throw reject("\(formatNumber(number)) is not allowed; the model allows \(constraint)")
            }
            return number
        }
    }

    /// The key, the default and the allowed values, such as `learningRate = 0.01 (0 ... 1)`.
    public var description: String {
        "\(key.name) = \(defaultValue)" + (numericConstraint.map { " (\($0))" } ?? "")
    }
}

private func numericValue(_ value: Any) -> Double? {
    switch value {
    case let value as Double: return value
    case let value as Float: return Double(value)
    case let value as Int: return Double(value)
    case let value as Int64: return Double(value)
    case let value as Int32: return Double(value)
    case let value as NSNumber: return value.doubleValue
    default: return nil
    }
}
