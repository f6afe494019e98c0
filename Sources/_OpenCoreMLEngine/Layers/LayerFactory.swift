import CoreMLSpec

/// Makes the compiled node for a layer of the specification.
enum LayerFactory {
    static func make(_ spec: CoreML_Specification_NeuralNetworkLayer, inputs: [Blob], outputs: [Blob]) throws -> LayerNode {
        switch spec.layer {
        case .convolution(let p)?:
            if p.isDeconvolution { return try DeconvolutionNode(spec, p, inputs: inputs, outputs: outputs) }
            return try ConvolutionNode(spec, p, inputs: inputs, outputs: outputs)
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

    /// Whether ``make(_:inputs:outputs:)`` has a node for `spec`'s layer type and options; a network
    /// with a layer it has none for predicts as an ML Program (``ClassicLowering``).
    static func hasNode(for spec: CoreML_Specification_NeuralNetworkLayer) -> Bool {
        switch spec.layer {
        case .convolution?: return spec.input.count == 1
        case .batchedMatmul(let p)?: return !p.int8DynamicQuantize
        case .innerProduct?, .pooling?, .activation?, .softmax?, .flatten?, .add?, .multiply?, .concat?, .reshape?, .permute?,
             .padding?, .bias?, .scale?, .batchnorm?, .l2Normalize?, .upsample?, .unary?, .clip?, .loadConstant?, .embedding?,
             .uniDirectionalLstm?, .softmaxNd?, .concatNd?, .flattenTo2D?, .reshapeStatic?:
            return true
        default: return false
        }
    }
}

extension Network {
    /// Whether the classic engine has a node for every layer of `model`'s network (a model that is
    /// no neural network has none).
    package static func hasNodes(forEveryLayerOf model: CoreML_Specification_Model) -> Bool {
        model.neuralNetworkSpecification?.layers.allSatisfy(LayerFactory.hasNode(for:)) ?? false
    }

    /// Whether the classic engine has a node for `layer` (and so can train through it).
    package static func hasNode(for layer: CoreML_Specification_NeuralNetworkLayer) -> Bool {
        LayerFactory.hasNode(for: layer)
    }
}
