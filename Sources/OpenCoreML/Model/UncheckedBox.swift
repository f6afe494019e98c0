/// Carries a non-Sendable value across a task boundary that the caller knows is safe.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
