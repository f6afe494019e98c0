import Foundation

/// The buffers a stateful model reads and updates from one prediction to the next (Core ML's
/// `MLState`, iOS 18), such as the key and value caches of a language model's decoder.
///
/// Make one with ``MLModel/makeState()`` and pass it to
/// ``MLModel/prediction(from:using:options:)``: each prediction reads the state's buffers and
/// leaves their new values in them. A new state's buffers are zero; another state from the same
/// model starts over, independent of the first.
///
/// ```swift
/// let state = model.makeState()
/// for token in tokens {
///     let output = try model.prediction(from: input(token), using: state)
/// }
/// state.withMultiArray(for: "k_cache") { cache in print(cache.shape) }
/// ```
///
/// A state serves one prediction at a time (predictions that share it wait for each other);
/// ``withMultiArray(for:handler:)`` waits for a running prediction too.
public final class MLState: @unchecked Sendable {
    /// The model that made the state: only its predictions may use it.
    let model: MLModel
    /// The buffers by state name, each in the element type the model declares for it.
    private let buffers: [String: MLMultiArray]
    /// The state names, in the model's order (an OpenCoreML addition).
    public let stateNames: [String]
    private let lock = NSLock()

    /// A zero-filled buffer for each of `model`'s states when `makeBuffers` (the model's program
    /// compiled, its states' sizes reserved from the memory limit); none otherwise, and one that
    /// cannot be made is left out: a prediction with the state then fails, naming the reason.
    init(model: MLModel, makeBuffers: Bool) {
        self.model = model
        var buffers: [String: MLMultiArray] = [:]
        for description in model.modelDescription.stateDescriptions where makeBuffers {
            guard let constraint = description.stateConstraint,
                  let buffer = try? MLMultiArray(shape: constraint.bufferShape, dataType: constraint.dataType) else { continue }
            buffers[description.name] = buffer
        }
        self.buffers = buffers
        stateNames = model.modelDescription.stateDescriptions.map(\.name)
    }

    /// Calls `handler` with the buffer of the state `stateName`, to read or change it: what the
    /// handler writes is what the next prediction reads. The array is the state's own storage; do
    /// not keep it beyond the handler.
    ///
    /// - Precondition: `stateName` is one of the model's states
    ///   (``MLModelDescription/stateDescriptionsByName``); Core ML stops the program otherwise too.
    ///   A state of the model whose buffer could not be made gives the handler an empty array.
    public func withMultiArray(for stateName: String, handler: (MLMultiArray) throws -> Void) rethrows {
        guard stateNames.contains(stateName) else {
            preconditionFailure("MLState has no state named '\(stateName)' (it has \(stateNames.joined(separator: ", ")))")
        }
        guard let buffer = buffers[stateName] else {
            if let empty = try? MLMultiArray.emptyRows(columns: 0, dataType: .float32) { try handler(empty) }
            return
        }
        lock.lock()
        defer { lock.unlock() }
        try handler(buffer)
    }

    /// The buffer of the state `stateName`, nil when the model has none of that name (for the C
    /// interface, which hands out its storage).
    package func buffer(named stateName: String) -> MLMultiArray? {
        buffers[stateName]
    }

    /// Runs `body` with the state to itself: the states `names` as float32 tensors' values by
    /// name, then their new values written back into the buffers.
    ///
    /// - Throws: ``MLModelError`` naming a state the buffers lack, or what `body` throws.
    func updating<Result>(_ names: [String], _ body: (inout [String: (shape: [Int], values: [Float])]) throws -> Result) throws -> Result {
        lock.lock()
        defer { lock.unlock() }
        var values: [String: (shape: [Int], values: [Float])] = [:]
        for name in names {
            guard let buffer = buffers[name] else {
                throw MLModelError(.generic, "the state has no buffer for '\(name)' (it could not be made, or the program reads a state the model does not describe)")
            }
            var floats = [Float](repeating: 0, count: buffer.count)
            floats.withUnsafeMutableBufferPointer { if let base = $0.baseAddress { buffer.copyFloats(to: base) } }
            values[name] = (buffer.shape.map(\.intValue), floats)
        }
        let result = try body(&values)
        for name in names {
            guard let buffer = buffers[name], let new = values[name], new.values.count == buffer.count else { continue }
            new.values.withUnsafeBufferPointer { if let base = $0.baseAddress { buffer.storeFloats(base) } }
        }
        return result
    }
}
