/// The result builder behind every `{ … }` list in the DSL: a model's items, a network's layers,
/// a pipeline's models. Statements, `if`, `if`/`else`, `switch` and `for` loops all work, with no
/// limit on the number of statements (`buildPartialBlock`).
@resultBuilder
public enum ItemBuilder<Element> {
    public static func buildExpression(_ element: Element) -> [Element] { [element] }
    public static func buildExpression(_ elements: [Element]) -> [Element] { elements }
    public static func buildBlock() -> [Element] { [] }
    public static func buildPartialBlock(first: [Element]) -> [Element] { first }
    public static func buildPartialBlock(accumulated: [Element], next: [Element]) -> [Element] { accumulated + next }
    public static func buildOptional(_ elements: [Element]?) -> [Element] { elements ?? [] }
    public static func buildEither(first: [Element]) -> [Element] { first }
    public static func buildEither(second: [Element]) -> [Element] { second }
    public static func buildArray(_ groups: [[Element]]) -> [Element] { groups.flatMap { $0 } }
    public static func buildLimitedAvailability(_ elements: [Element]) -> [Element] { elements }
}

/// Builds the items of a `Model { … }` declaration.
public typealias ModelItemBuilder = ItemBuilder<any ModelItem>
/// Builds the layers of a `NeuralNetwork { … }` declaration.
public typealias LayerBuilder = ItemBuilder<any Layer>
