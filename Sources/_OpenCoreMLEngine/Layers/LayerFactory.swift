import CoreMLSpec

/// Makes the compiled node for a layer of the specification.
enum LayerFactory {
    static func make(_ spec: CoreML_Specification_NeuralNetworkLayer, inputs: [Blob], outputs: [Blob]) throws -> LayerNode {
        switch spec.layer {
        case .convolution(let p)?: return try ConvolutionNode(spec, p, inputs: inputs, outputs: outputs)
        case .innerProduct(let p)?: return try InnerProductNode(spec, p, inputs: inputs, outputs: outputs)
        case .pooling(let p)?: return PoolingNode(spec, p, inputs: inputs, outputs: outputs)
        case .activation(let p)?: return try ActivationNode(spec, p, inputs: inputs, outputs: outputs)
        case .softmax?: return SoftmaxNode(spec, inputs: inputs, outputs: outputs)
        case .flatten(let p)?: return FlattenNode(spec, p, inputs: inputs, outputs: outputs)
        default:
            if let node = try makeElementwiseOrShapeNode(spec, inputs: inputs, outputs: outputs) { return node }
            if let node = try makeSequenceOrNDNode(spec, inputs: inputs, outputs: outputs) { return node }
            throw EngineError("layer '\(spec.name)'", "\(spec.layerTypeName) layers are not supported by the OpenCoreML engine yet")
        }
    }
}
