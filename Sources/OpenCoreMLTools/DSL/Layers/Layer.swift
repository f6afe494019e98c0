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

    /// Sets the weight blob `blob` of `layer` (whose sizes and flags are already set) to `values`,
    /// or to `initial(count)` when they are not given, where `count` is the number of values the
    /// layer table expects of the blob (`weightBlobs`). `what` names the blob in messages.
    func setWeights(
        _ blob: String, of layer: inout CoreML_Specification_NeuralNetworkLayer, to values: [Float]?, what: String,
        updatable: Bool, initial: (Int) -> [Float]
    ) throws {
        guard let entry = layer.weightBlob(named: blob) else { throw ModelToolsError(location, "the layer has no \(what)") }
        let expected: Int
        switch entry.expectedCount {
        case .exactly(let count): expected = count
        case .fromInput: expected = values?.count ?? 1
        case .overflow(let sizes):
            throw ModelToolsError(location, "\(what) would need \(sizes.map(String.init).joined(separator: " × ")) values, more than a model can hold")
        }
        layer[keyPath: entry.path] = try weights(values ?? initial(expected), expected: expected, what: what, updatable: updatable)
    }

    /// Sets the weight blob `blob` to `values`, or to Glorot-uniform ones seeded by the layer's name
    /// and `what`.
    func setWeights(
        _ blob: String, of layer: inout CoreML_Specification_NeuralNetworkLayer, to values: [Float]?, what: String,
        fanIn: Int, fanOut: Int, updatable: Bool
    ) throws {
        try setWeights(blob, of: &layer, to: values, what: what, updatable: updatable) { count in
            WeightInitializer.glorotUniform(count: count, fanIn: fanIn, fanOut: fanOut, layer: "\(name)/\(what)")
        }
    }

    /// Sets the weight blob `blob` to `values`, or to copies of `fill`.
    func setWeights(
        _ blob: String, of layer: inout CoreML_Specification_NeuralNetworkLayer, to values: [Float]?, what: String,
        fill: Float, updatable: Bool
    ) throws {
        try setWeights(blob, of: &layer, to: values, what: what, updatable: updatable) { [Float](repeating: fill, count: $0) }
    }
}
