import CoreMLSpec

/// A layer's weight tensor (weights, bias, gamma, …) as the engine trains it.
package final class Parameter: @unchecked Sendable {
    /// `layer.weights`, `layer.bias`, … — unique within a network.
    package let name: String
    package let count: Int
    package let value: FloatBuffer
    /// The loss gradient after a backward pass (only for trainable parameters).
    package let gradient: FloatBuffer
    /// Whether the optimizer changes it: the layer and the weights are both marked updatable.
    package let isTrainable: Bool
    /// Optimizer state (momentum velocity, or Adam's first and second moments), made on first use.
    var state: [FloatBuffer] = []

    init(name: String, values: [Float], isTrainable: Bool) {
        self.name = name
        count = values.count
        value = FloatBuffer(values)
        gradient = FloatBuffer(capacity: isTrainable ? values.count : 0)
        self.isTrainable = isTrainable
    }

    /// Reads the layer's weight blob `blob` as the layer table lists it (`weightBlob(named:)`),
    /// checking it holds as many values as the table expects; nil when the table does not list it
    /// (a bias whose `hasBias` flag is off, for one).
    static func optional(_ blob: String, of layer: CoreML_Specification_NeuralNetworkLayer) throws -> Parameter? {
        guard let (entry, values) = try decode(blob, of: layer) else { return nil }
        return Parameter(name: "\(layer.name).\(blob)", values: values,
                         isTrainable: entry.isTrainable && layer.isUpdatable && layer[keyPath: entry.path].isUpdatable)
    }

    /// Reads the layer's weight blob `blob`, which the layer must have.
    static func required(_ blob: String, of layer: CoreML_Specification_NeuralNetworkLayer) throws -> Parameter {
        guard let parameter = try optional(blob, of: layer) else {
            throw EngineError("layer '\(layer.name)'", "the \(layer.layerTypeName) layer has no \(blob)")
        }
        return parameter
    }

    /// The values of the layer's weight blob `blob` (one that is not trained, such as stored
    /// statistics), which the layer must have.
    static func values(_ blob: String, of layer: CoreML_Specification_NeuralNetworkLayer) throws -> [Float] {
        guard let (_, values) = try decode(blob, of: layer) else {
            throw EngineError("layer '\(layer.name)'", "the \(layer.layerTypeName) layer has no \(blob)")
        }
        return values
    }

    /// The table's entry for `blob` and its decoded values, checked against the expected count.
    private static func decode(_ blob: String, of layer: CoreML_Specification_NeuralNetworkLayer) throws -> (LayerWeight, [Float])? {
        guard let entry = layer.weightBlob(named: blob) else { return nil }
        let expected: Int?
        switch entry.expectedCount {
        case .exactly(let count): expected = count
        case .fromInput: expected = nil
        case .overflow(let sizes):
            throw EngineError("layer '\(layer.name)'", "\(blob) would need \(sizes.map(String.init).joined(separator: " × ")) values, more than any file can hold")
        }
        let values: [Float]
        do {
            values = try layer[keyPath: entry.path].floatValues(count: expected)
        } catch let error as LayerSpecificationError {
            throw EngineError("layer '\(layer.name)' \(blob)", error.message)
        }
        if let expected, values.count != expected {
            throw EngineError("layer '\(layer.name)'", "\(blob) holds \(values.count) values, \(expected) expected")
        }
        return (entry, values)
    }

    /// The current values.
    package var values: [Float] { value.array(count) }

    /// Stores the current values in `weights` as float32 (the format trainable weights must use).
    /// Frozen parameters leave `weights` untouched, keeping their original storage.
    func store(in weights: inout CoreML_Specification_WeightParams) {
        guard isTrainable else { return }
        weights.floatValue = values
    }
}
