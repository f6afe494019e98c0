import CoreMLSpec

/// One class label: Core ML labels are all strings or all 64-bit integers.
/// Literals work: `["cat", "dog"]` or `[0, 1, 2]`.
public enum ClassLabel: Hashable, Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// A string label.
    case string(String)
    /// A 64-bit integer label.
    case int64(Int64)

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int64(value) }

    /// The label as text.
    public var description: String {
        switch self {
        case .string(let value): return value
        case .int64(let value): return String(value)
        }
    }

    var typeName: String {
        switch self {
        case .string: return "String"
        case .int64: return "Int64"
        }
    }
}

extension ClassLabelSet {
    /// Labels of one type from a list that must not mix strings and integers.
    init(_ labels: [ClassLabel], location: String) throws {
        let strings = labels.compactMap { if case .string(let value) = $0 { return value } else { return nil } }
        let integers = labels.compactMap { if case .int64(let value) = $0 { return value } else { return nil } }
        switch (strings.isEmpty, integers.isEmpty) {
        case (true, true): self = .none
        case (false, true): self = .strings(strings)
        case (true, false): self = .int64s(integers)
        case (false, false):
            throw ModelToolsError(location, "class labels mix strings (\"\(strings[0])\") and integers (\(integers[0])); use one type")
        }
    }

    /// The labels as `ClassLabel`s.
    var labels: [ClassLabel] {
        switch self {
        case .strings(let values): return values.map(ClassLabel.string)
        case .int64s(let values): return values.map(ClassLabel.int64)
        case .none: return []
        }
    }

    /// The feature type of a predicted label of this type (string or int64).
    var labelFeatureType: CoreML_Specification_FeatureType {
        var type = CoreML_Specification_FeatureType()
        if case .int64s = self { type.int64Type = CoreML_Specification_Int64FeatureType() } else { type.stringType = CoreML_Specification_StringFeatureType() }
        return type
    }

    /// The feature type of the probabilities dictionary keyed by these labels.
    var probabilitiesFeatureType: CoreML_Specification_FeatureType {
        var type = CoreML_Specification_FeatureType()
        if case .int64s = self {
            type.dictionaryType.int64KeyType = CoreML_Specification_Int64FeatureType()
        } else {
            type.dictionaryType.stringKeyType = CoreML_Specification_StringFeatureType()
        }
        return type
    }
}
