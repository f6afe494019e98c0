import Foundation

/// The classic-model fixtures in `Tests/Fixtures/classic` (`make_classic.py`): coremltools'
/// conversions of scikit-learn and XGBoost models and what those libraries predicted.
///
/// Read with `JSONDecoder`, which gives each number the double its text names. (Foundation's
/// `JSONSerialization` on Linux reads numbers as `NSDecimalNumber`s whose `doubleValue` can be
/// one unit in the last place off, enough to send a value that equals a tree's threshold down the
/// other branch.)
public enum ClassicFixtures {
    public static let directory = Fixtures.directory.deletingLastPathComponent().appendingPathComponent("classic")

    public struct Example: Decodable, Sendable {
        public var inputs: [String: JSONValue]
        public var outputs: [String: JSONValue]
    }

    public struct Case: Decodable, Sendable {
        public var name: String
        public var file: String
        public var source: String
        public var modelTypes: [String]
        public var tolerance: Double
        public var examples: [Example]
    }

    struct Manifest: Decodable { var cases: [Case] }

    /// Every case, in the manifest's order.
    public static let cases: [Case] = {
        let data = try! Data(contentsOf: directory.appendingPathComponent("classic.json"))
        return try! JSONDecoder().decode(Manifest.self, from: data).cases
    }()

    public static func named(_ name: String) -> Case? { cases.first { $0.name == name } }
}

/// A JSON value, numbers as the doubles their text names.
public enum JSONValue: Decodable, Sendable, Equatable {
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
    case null

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let number = try? container.decode(Double.self) { self = .number(number) }
        else if let text = try? container.decode(String.self) { self = .string(text) }
        else if let array = try? container.decode([JSONValue].self) { self = .array(array) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    public var number: Double? { if case .number(let value) = self { return value } else { return nil } }
    public var string: String? { if case .string(let value) = self { return value } else { return nil } }
    public var array: [JSONValue]? { if case .array(let value) = self { return value } else { return nil } }
    public var object: [String: JSONValue]? { if case .object(let value) = self { return value } else { return nil } }
}
