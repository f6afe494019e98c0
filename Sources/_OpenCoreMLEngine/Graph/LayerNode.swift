import CoreMLSpec

/// One compiled layer: its input and output blobs, its parameters, forward and backward.
///
/// The network sets every blob's shape by the layer table (`outputShapes(for:)` in CoreMLSpec),
/// then calls `prepareForShapes()`. Subclasses override that, `forward(batch:training:)` and, when
/// they can be trained through, `backward(batch:)`. Buffers are sized by `reserve(batch:training:)`
/// before a batch runs.
package class LayerNode: @unchecked Sendable {
    package let name: String
    /// The Core ML layer type name (`convolution`, `innerProduct`, …).
    package let typeName: String
    package let inputs: [Blob]
    package let outputs: [Blob]
    package internal(set) var parameters: [Parameter] = []

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, inputs: [Blob], outputs: [Blob]) {
        name = spec.name
        typeName = spec.layerTypeName
        self.inputs = inputs
        self.outputs = outputs
    }

    /// What a profile calls the layer: its type, refined where one type runs very different code
    /// (a depthwise or pointwise convolution).
    var profileKind: String { typeName }

    var input: Blob { inputs[0] }
    var output: Blob { outputs[0] }

    /// Works out what the node needs from its blobs' shapes (padding, index maps, broadcasts),
    /// once the network has set them by the layer table, which has also checked that they fit.
    func prepareForShapes() throws {}

    /// Sizes scratch buffers for `batch` examples (blobs are sized by the network).
    func reserve(batch: Int, training: Bool) {}

    /// Computes the outputs for `batch` examples.
    func forward(batch: Int, training: Bool) {}

    /// Given the outputs' gradients, adds the parameters' gradients (overwriting them: each batch
    /// starts afresh) and writes the gradients of the inputs whose `needsGradient` is set.
    /// Subclasses that override it also override `hasBackward`.
    func backward(batch: Int) {}

    /// Whether the node has a backward (overrides `backward(batch:)`). Without one, nothing flows
    /// back through it, so training refuses a network that needs a gradient through it
    /// (`Network.checkGradientPaths()`) instead of passing zero gradients upstream.
    var hasBackward: Bool { false }

    /// Whether the backward gives input `index` its true gradient (not zeros).
    func passesGradient(toInput index: Int) -> Bool { hasBackward }

    /// Writes the trained parameters back into the layer's specification.
    func store(in spec: inout CoreML_Specification_NeuralNetworkLayer) {}

    /// The layer that runs this one inside its own forward and backward passes (set by the
    /// network's fusion pass); a fused layer is skipped and its input blob is never filled.
    weak var fusedInto: LayerNode?

    /// The blobs this layer writes in forward and whose gradients it reads in backward: its
    /// outputs, or those of the last layer fused into it.
    var producedOutputs: [Blob] { outputs }

    /// Multiply-adds of one example's forward pass in the layer's matrix products (0 for layers
    /// without any); the backward pass does as many again for the weights' gradient and, when the
    /// input needs a gradient, for that.
    var multiplyAddsPerExample: Int { 0 }

    /// Whether any parameter of this layer is trained.
    var hasTrainableParameters: Bool { parameters.contains(where: \.isTrainable) }

    private let accumulationScratch = FloatBuffer()

    /// Lets `body` overwrite `blob`'s gradient; see `Blob.setGradient(count:scratch:_:)`.
    func setGradient(of blob: Blob, count: Int, _ body: (UnsafeMutablePointer<Float>) -> Void) {
        blob.setGradient(count: count, scratch: accumulationScratch, body)
    }

    func fail(_ message: String) -> EngineError {
        EngineError("layer '\(name)' (\(typeName))", message)
    }

    /// A size `spec` declares in its field `field`, as an `Int` the kernels' 32-bit arguments can
    /// take; an error naming the layer and the field when it is negative or past `Int32.max`.
    static func declaredSize(_ value: some BinaryInteger, _ field: String, of spec: CoreML_Specification_NeuralNetworkLayer) throws -> Int {
        let location = "layer '\(spec.name)' (\(spec.layerTypeName))"
        do {
            return try checkedSize(value, limit: Int(Int32.max), what: field, where: location)
        } catch {
            throw EngineError(error.location, error.message)
        }
    }
}
