/// The class labels of a classifier, which the format stores as either strings or integers.
public enum ClassLabelSet: Equatable, Sendable {
    case strings([String])
    case int64s([Int64])
    /// No labels given.
    case none

    /// How many labels there are.
    public var count: Int {
        switch self {
        case .strings(let labels): return labels.count
        case .int64s(let labels): return labels.count
        case .none: return 0
        }
    }

    /// The labels as text, for display.
    public var descriptions: [String] {
        switch self {
        case .strings(let labels): return labels
        case .int64s(let labels): return labels.map(String.init)
        case .none: return []
        }
    }

    /// `String`, `Int64`, or `none`.
    public var typeName: String {
        switch self {
        case .strings: return "String"
        case .int64s: return "Int64"
        case .none: return "none"
        }
    }
}
