import CoreMLSpec

/// Any of Core ML's 158 neural-network layer types, its parameters set on the format's own layer
/// message: for the layers the DSL has no type of its own for (`slice`, `resizeBilinear`, `gru`,
/// the rank-N layers of iOS 13 and later, control flow, …), with the field names of Apple's
/// `NeuralNetwork.proto`.
///
/// ```swift
/// SpecificationLayer(name: "resize", input: ["features"], output: ["resized"]) {
///     $0.resizeBilinear.targetSize = [64, 64]
///     $0.resizeBilinear.mode.samplingMethod = .alignCornersTrue
/// }
/// ```
///
/// The name, blobs and updatable flag are the element's; `configure` sets the layer type and its
/// parameters. Weights are checked against the sizes the parameters give them (the layer table's
/// `weightBlobs`), and a declared updatable layer must be of a type OpenCoreML can update.
public struct SpecificationLayer: Layer {
    /// The layer's name, unique in the network.
    public let name: String
    /// The blobs the layer reads (none for layers that make values, such as `loadConstantND`).
    public let input: [String]
    /// The blobs the layer writes.
    public let output: [String]
    /// Whether training may change the layer's weights.
    public let updatable: Bool
    private let configure: (inout CoreML_Specification_NeuralNetworkLayer) throws -> Void

    /// A layer whose type and parameters `configure` sets.
    ///
    /// - Parameters:
    ///   - name: The layer's name, unique in the network.
    ///   - input: The blobs the layer reads.
    ///   - output: The blobs the layer writes.
    ///   - updatable: Whether training may change the layer's weights (their `isUpdatable` flags are
    ///     set too).
    ///   - configure: Sets one of the message's layer cases (`$0.slice`, `$0.gru`, …) and its fields.
    public init(name: String, input: [String], output: [String], updatable: Bool = false,
                _ configure: @escaping (inout CoreML_Specification_NeuralNetworkLayer) throws -> Void) {
        self.name = name
        self.input = input
        self.output = output
        self.updatable = updatable
        self.configure = configure
    }

    /// The layer as the format stores it.
    ///
    /// - Throws: A ``ModelToolsError`` when a name is empty, `configure` sets no layer type or
    ///   changes the name or blobs, a weight holds another number of values than its parameters
    ///   give it, or an updatable layer's type cannot be updated.
    public func layerSpecification() throws -> CoreML_Specification_NeuralNetworkLayer {
        guard !name.isEmpty else { throw ModelToolsError("layer", "a layer has an empty name") }
        guard !input.contains(""), !output.isEmpty, !output.contains("") else {
            throw ModelToolsError(location, "needs non-empty blob names and at least one output (got inputs \(input), outputs \(output))")
        }
        var layer = CoreML_Specification_NeuralNetworkLayer()
        layer.name = name
        layer.input = input
        layer.output = output
        try configure(&layer)
        guard layer.layer != nil else { throw ModelToolsError(location, "the configuration sets no layer type") }
        guard layer.name == name, layer.input == input, layer.output == output else {
            throw ModelToolsError(location, "the configuration changed the layer's name or blobs; give them to SpecificationLayer instead")
        }
        let typeName = layer.layerTypeName
        if updatable {
            guard CoreML_Specification_NeuralNetworkLayer.updatableLayerTypes.contains(typeName) else {
                throw ModelToolsError(location, "\(typeName) layers cannot be updatable")
            }
            layer.isUpdatable = true
        }
        try layer.forEachWeight { blob, weights in
            if case .exactly(let expected) = blob.expectedCount, weights.count != expected {
                throw ModelToolsError(location, "\(blob.name) has \(weights.count) values; the \(typeName) layer's parameters give it \(expected)")
            }
            if updatable && blob.isTrainable { weights.isUpdatable = true }
        }
        return layer
    }
}
