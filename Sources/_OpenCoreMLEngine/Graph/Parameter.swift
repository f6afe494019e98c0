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

    /// Reads the values of `weights`, which must hold `expected` of them.
    convenience init(
        layer: CoreML_Specification_NeuralNetworkLayer, field: String, weights: CoreML_Specification_WeightParams,
        expected: Int
    ) throws {
        let values = try weights.floatValues(location: "layer '\(layer.name)' \(field)")
        guard values.count == expected else {
            throw EngineError("layer '\(layer.name)'", "\(field) holds \(values.count) values, \(expected) expected")
        }
        self.init(name: "\(layer.name).\(field)", values: values, isTrainable: layer.isUpdatable && weights.isUpdatable)
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
