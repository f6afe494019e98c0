/// A JSON value as ``JSONReader`` reads it: objects keep their keys in file order (a table's
/// columns, a Flower record's arrays), and integer literals that fit an `Int` stay integers.
package indirect enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    /// A number literal without a fraction or exponent that fits an `Int`.
    case int(Int)
    /// Any other number literal.
    case double(Double)
    case string(String)
    case array([JSONValue])
    /// The entries in file order; a key may appear twice (the reader does not judge).
    case object([(String, JSONValue)])

    package static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.int(let x), .int(let y)): return x == y
        case (.double(let x), .double(let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)): return x.map(\.0) == y.map(\.0) && x.map(\.1) == y.map(\.1)
        default: return false
        }
    }
}
