import CoreMLSpec

extension LayerFactory {
    /// Elementwise, normalization and shape layers; nil for other types.
    static func makeElementwiseOrShapeNode(_ spec: CoreML_Specification_NeuralNetworkLayer, inputs: [Blob], outputs: [Blob]) throws -> LayerNode? {
        let node: LayerNode
        switch spec.layer {
        case .add(let p)?: node = try AddNode(spec, p, inputs: inputs, outputs: outputs)
        case .multiply(let p)?: node = try MultiplyNode(spec, p, inputs: inputs, outputs: outputs)
        case .concat(let p)?: node = try ConcatNode(spec, p, inputs: inputs, outputs: outputs)
        case .reshape(let p)?: node = try ReshapeNode(spec, p, inputs: inputs, outputs: outputs)
        case .permute(let p)?: node = try PermuteNode(spec, p, inputs: inputs, outputs: outputs)
        case .padding(let p)?: node = try PaddingNode(spec, p, inputs: inputs, outputs: outputs)
        case .bias(let p)?: node = try BiasNode(spec, p, inputs: inputs, outputs: outputs)
        case .scale(let p)?: node = try ScaleNode(spec, p, inputs: inputs, outputs: outputs)
        case .batchnorm(let p)?: node = try BatchNormNode(spec, p, inputs: inputs, outputs: outputs)
        case .l2Normalize(let p)?: node = L2NormalizeNode(spec, p, inputs: inputs, outputs: outputs)
        case .upsample(let p)?: node = try UpsampleNode(spec, p, inputs: inputs, outputs: outputs)
        case .unary(let p)?: node = try UnaryNode(spec, p, inputs: inputs, outputs: outputs)
        case .clip(let p)?: node = ClipNode(spec, p, inputs: inputs, outputs: outputs)
        case .loadConstant(let p)?: node = try LoadConstantNode(spec, p, inputs: inputs, outputs: outputs)
        default: return nil
        }
        let expectsInput = !(node is LoadConstantNode)
        if expectsInput && inputs.isEmpty { throw node.fail("the layer needs an input") }
        if outputs.count != 1 { throw node.fail("the layer produces one output, \(outputs.count) are named") }
        return node
    }
}
