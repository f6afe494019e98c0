/// The result builder behind every `{ … }` list in the DSL: a model's items, a network's layers,
/// a pipeline's models. Statements, `if`, `if`/`else`, `switch` and `for` loops all work, with no
/// limit on the number of statements (`buildPartialBlock`).
@resultBuilder
public enum ItemBuilder<Element> {
    /// One item.
    public static func buildExpression(_ element: Element) -> [Element] { [element] }
    /// An array of items, all added.
    public static func buildExpression(_ elements: [Element]) -> [Element] { elements }
    /// An empty block: no items.
    public static func buildBlock() -> [Element] { [] }
    /// The first statement's items.
    public static func buildPartialBlock(first: [Element]) -> [Element] { first }
    /// The items so far followed by the next statement's.
    public static func buildPartialBlock(accumulated: [Element], next: [Element]) -> [Element] { accumulated + next }
    /// An `if` without `else`: its items, or none.
    public static func buildOptional(_ elements: [Element]?) -> [Element] { elements ?? [] }
    /// The first branch of an `if`/`else` or `switch`.
    public static func buildEither(first: [Element]) -> [Element] { first }
    /// The second branch of an `if`/`else` or `switch`.
    public static func buildEither(second: [Element]) -> [Element] { second }
    /// A `for` loop: every iteration's items, in order.
    public static func buildArray(_ groups: [[Element]]) -> [Element] { groups.flatMap { $0 } }
    /// An `if #available` block's items.
    public static func buildLimitedAvailability(_ elements: [Element]) -> [Element] { elements }
}

/// Builds the items of a `Model { … }` declaration.
public typealias ModelItemBuilder = ItemBuilder<any ModelItem>
/// Builds the layers of a `NeuralNetwork { … }` declaration.
public typealias LayerBuilder = ItemBuilder<any Layer>
