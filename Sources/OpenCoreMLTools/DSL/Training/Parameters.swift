import CoreMLSpec

extension CoreML_Specification_DoubleParameter {
    /// A default with its allowed range; the default must lie inside it.
    static func parameter(_ name: String, _ value: Double, _ range: ClosedRange<Double>) throws -> Self {
        guard value.isFinite, range.lowerBound.isFinite, range.upperBound.isFinite, range.contains(value) else {
            throw ModelToolsError(name, "the default \(value) lies outside the allowed range \(range.lowerBound)…\(range.upperBound)")
        }
        var parameter = Self()
        parameter.defaultValue = value
        parameter.range.minValue = range.lowerBound
        parameter.range.maxValue = range.upperBound
        return parameter
    }
}

extension CoreML_Specification_Int64Parameter {
    /// A positive default with the set of allowed values; the default must be one of them.
    static func parameter(_ name: String, _ value: UInt, allowed: [UInt]) throws -> Self {
        guard value > 0, allowed.allSatisfy({ $0 > 0 }) else {
            throw ModelToolsError(name, "values must be positive (default \(value), allowed \(allowed))")
        }
        guard allowed.contains(value) else {
            throw ModelToolsError(name, "the default \(value) is not one of the allowed values \(allowed)")
        }
        var parameter = Self()
        parameter.defaultValue = Int64(value)
        parameter.set.values = allowed.map { Int64($0) }
        return parameter
    }

    /// A positive default with the range of allowed values; the default must lie inside it.
    static func parameter(_ name: String, _ value: UInt, range: ClosedRange<UInt>) throws -> Self {
        guard value > 0, range.lowerBound > 0, range.contains(value) else {
            throw ModelToolsError(name, "the default \(value) must be positive and within \(range.lowerBound)…\(range.upperBound)")
        }
        var parameter = Self()
        parameter.defaultValue = Int64(value)
        parameter.range.minValue = Int64(range.lowerBound)
        parameter.range.maxValue = Int64(range.upperBound)
        return parameter
    }
}
