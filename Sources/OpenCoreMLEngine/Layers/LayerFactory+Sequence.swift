import CoreMLSpec

extension LayerFactory {
    /// Embedding, recurrent and rank-N layers; nil for other types.
    static func makeSequenceOrNDNode(_ spec: CoreML_Specification_NeuralNetworkLayer, inputs: [Blob], outputs: [Blob]) throws -> LayerNode? {
        nil
    }
}
