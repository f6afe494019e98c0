/// Carries a non-Sendable value across a thread or task boundary that the caller knows is safe
/// (one side writes before the other reads, ordered by a semaphore or a continuation).
final class UncheckedBox<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
