extension CoreML_Specification_Int64Parameter {
    /// The default must lie in the allowed set or range; `positive` also demands every allowed value be > 0.
    func validate(_ name: String, positive: Bool, in context: inout ValidationContext) {
        if positive && defaultValue <= 0 {
            context.fail("the default \(defaultValue) must be positive", at: name)
        }
        switch allowedValues {
        case .set(let set)?:
            if positive, let bad = set.values.first(where: { $0 <= 0 }) {
                context.fail("the allowed set holds \(bad), which is not positive", at: name)
            }
            if !set.values.contains(defaultValue) {
                context.fail("the default \(defaultValue) is not in the allowed set \(set.values)", at: name)
            }
        case .range(let range)?:
            if range.minValue > range.maxValue {
                context.fail("the allowed range \(range.minValue)...\(range.maxValue) is empty", at: name)
            } else if positive && range.minValue <= 0 {
                context.fail("the allowed range \(range.minValue)...\(range.maxValue) includes non-positive values", at: name)
            }
            if defaultValue < range.minValue || defaultValue > range.maxValue {
                context.fail("the default \(defaultValue) is outside the allowed range \(range.minValue)...\(range.maxValue)", at: name)
            }
        case nil:
            break
        }
    }

    /// Whether `value` is allowed (always, when no set or range is given).
    public func allows(_ value: Int64) -> Bool {
        switch allowedValues {
        case .set(let set)?: return set.values.contains(value)
        case .range(let range)?: return range.minValue <= value && value <= range.maxValue
        case nil: return true
        }
    }
}

extension CoreML_Specification_DoubleParameter {
    /// The default must be finite and lie in the allowed range.
    func validate(_ name: String, in context: inout ValidationContext) {
        if !defaultValue.isFinite {
            context.fail("the default \(defaultValue) is not a finite number", at: name)
        }
        if case .range(let range)? = allowedValues {
            if range.minValue > range.maxValue {
                context.fail("the allowed range \(range.minValue)...\(range.maxValue) is empty", at: name)
            }
            if defaultValue < range.minValue || defaultValue > range.maxValue {
                context.fail("the default \(defaultValue) is outside the allowed range \(range.minValue)...\(range.maxValue)", at: name)
            }
        }
    }

    /// Whether `value` is allowed (any finite value, when no range is given).
    public func allows(_ value: Double) -> Bool {
        guard value.isFinite else { return false }
        if case .range(let range)? = allowedValues {
            return range.minValue <= value && value <= range.maxValue
        }
        return true
    }
}
