import CoreMLSpec

/// Core ML's `reshapeStatic`: the same values in row-major order under the shape `targetShape`.
///
/// Batch convention: the engine keeps the batch on its own axis, so `targetShape` describes one
/// example — it must hold as many elements as one input example (under the exact mapping, the
/// shape Core ML itself sees for one prediction; a leading 1 a converter wrote for the batch is
/// simply a dimension of size 1). One entry may be −1: it is inferred from the others.
final class ReshapeStaticNode: IndexMapNode, @unchecked Sendable {
    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_ReshapeStaticLayerParams, inputs: [Blob], outputs: [Blob]) throws {
        super.init(spec, inputs: inputs, outputs: outputs)
    }
}
