import Foundation

/// An ordered list of strings or of integers: a sequence feature, such as the items a
/// recommender takes and recommends.
///
/// ```swift
/// let watched = MLFeatureValue(sequence: MLSequence(int64s: [3, 7]))
/// let titles = MLSequence(strings: ["Alien", "Heat"]).stringValues
/// ```
public final class MLSequence: @unchecked Sendable, CustomStringConvertible {
    private enum Storage {
        case strings([String])
        case int64s([Int64])
        case empty(MLFeatureType)
    }

    private let storage: Storage

    /// A sequence of strings.
    public init(strings: [String]) { storage = .strings(strings) }

    /// A sequence of integers.
    public init(int64s: [NSNumber]) { storage = .int64s(int64s.map(\.int64Value)) }

    private init(storage: Storage) { self.storage = storage }

    /// A sequence with no elements, of `type` (`.string` or `.int64`).
    public class func emptySequence(of type: MLFeatureType) -> MLSequence { MLSequence(storage: .empty(type)) }

    /// A sequence of integers, from Swift integers (an OpenCoreML convenience).
    convenience init(int64Values: [Int64]) { self.init(storage: .int64s(int64Values)) }

    /// The type of the elements: `.string` or `.int64`.
    public var type: MLFeatureType {
        switch storage {
        case .strings: return .string
        case .int64s: return .int64
        case .empty(let type): return type
        }
    }

    /// The elements, for a sequence of strings; empty otherwise.
    public var stringValues: [String] {
        if case .strings(let values) = storage { return values }
        return []
    }

    /// The elements, for a sequence of integers; empty otherwise.
    public var int64Values: [NSNumber] { int64Array.map { NSNumber(value: $0) } }

    /// The elements as Swift integers, for a sequence of integers; empty otherwise.
    var int64Array: [Int64] {
        if case .int64s(let values) = storage { return values }
        return []
    }

    /// How many elements there are.
    var count: Int {
        switch storage {
        case .strings(let values): return values.count
        case .int64s(let values): return values.count
        case .empty: return 0
        }
    }

    /// Whether both hold the same elements of the same type.
    func isEqual(to other: MLSequence) -> Bool {
        type == other.type && stringValues == other.stringValues && int64Array == other.int64Array
    }

    public var description: String {
        switch storage {
        case .strings(let values): return "\(values)"
        case .int64s(let values): return "\(values)"
        case .empty(let type): return "empty \(type) sequence"
        }
    }
}
