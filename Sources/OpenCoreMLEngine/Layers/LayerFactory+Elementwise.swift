import CoreMLSpec

extension LayerFactory {
    /// Elementwise, normalization and shape layers; nil for other types.
    static func makeElementwiseOrShapeNode(_ spec: CoreML_Specification_NeuralNetworkLayer, inputs: [Blob], outputs: [Blob]) throws -> LayerNode? {
        nil
    }
}
