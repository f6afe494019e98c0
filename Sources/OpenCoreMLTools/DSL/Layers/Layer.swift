import CoreMLSpec

/// A layer in a `NeuralNetwork { … }` declaration. Conform your own types to add layers the DSL
/// does not have.
public protocol Layer {
    /// The layer's name, unique in the network.
    var name: String { get }
    /// The layer as the format stores it.
    func layerSpecification() throws -> CoreML_Specification_NeuralNetworkLayer
}

extension Layer {
    var location: String { "layer '\(name)'" }

    /// A layer message with the name, blobs and updatable flag filled in.
    func baseSpecification(input: [String], output: [String], updatable: Bool = false) throws -> CoreML_Specification_NeuralNetworkLayer {
        guard !name.isEmpty else { throw ModelToolsError("layer", "a layer has an empty name") }
        guard !input.isEmpty, !input.contains(""), !output.isEmpty, !output.contains("") else {
            throw ModelToolsError(location, "needs non-empty input and output blob names (got inputs \(input), outputs \(output))")
        }
        var layer = CoreML_Specification_NeuralNetworkLayer()
        layer.name = name
        layer.input = input
        layer.output = output
        layer.isUpdatable = updatable
        return layer
    }

    /// Float32 weights after checking their count; `nil` values mean "not given".
    func weights(_ values: [Float], expected: Int, what: String, updatable: Bool) throws -> CoreML_Specification_WeightParams {
        guard values.count == expected else {
            throw ModelToolsError(location, "\(what) has \(values.count) values, expected \(expected)")
        }
        guard values.allSatisfy(\.isFinite) else {
            throw ModelToolsError(location, "\(what) contains NaN or infinite values")
        }
        var params = CoreML_Specification_WeightParams()
        params.floatValue = values
        params.isUpdatable = updatable
        return params
    }

    /// Given weights, or Glorot-uniform ones seeded by the layer's name (and `part`).
    func weights(_ values: [Float]?, expected: Int, fanIn: Int, fanOut: Int, what: String, updatable: Bool) throws -> CoreML_Specification_WeightParams {
        let values = values ?? WeightInitializer.glorotUniform(count: expected, fanIn: fanIn, fanOut: fanOut, layer: "\(name)/\(what)")
        return try weights(values, expected: expected, what: what, updatable: updatable)
    }

    /// Given values, or `count` copies of `fill`.
    func weights(_ values: [Float]?, count: Int, fill: Float, what: String, updatable: Bool) throws -> CoreML_Specification_WeightParams {
        try weights(values ?? [Float](repeating: fill, count: count), expected: count, what: what, updatable: updatable)
    }
}
