extension CoreML_Specification_NeuralNetworkLayer {
    /// The layer's weight blobs with their names (`weights`, `bias`, `gamma`, ...), in the format's order.
    /// Biases are listed only when the layer uses them.
    public var namedWeights: [(name: String, weights: CoreML_Specification_WeightParams)] {
        switch layer {
        case .convolution(let p)?: return [("weights", p.weights)] + (p.hasBias ? [("bias", p.bias)] : [])
        case .innerProduct(let p)?: return [("weights", p.weights)] + (p.hasBias ? [("bias", p.bias)] : [])
        case .embedding(let p)?: return [("weights", p.weights)] + (p.hasBias ? [("bias", p.bias)] : [])
        case .batchedMatmul(let p)?: return [("weights", p.weights)] + (p.hasBias ? [("bias", p.bias)] : [])
        case .batchnorm(let p)?:
            return [("gamma", p.gamma), ("beta", p.beta)]
                + (p.computeMeanVar ? [] : [("mean", p.mean), ("variance", p.variance)])
        case .scale(let p)?: return [("scale", p.scale)] + (p.hasBias ? [("bias", p.bias)] : [])
        case .bias(let p)?: return [("bias", p.bias)]
        case .loadConstant(let p)?: return [("data", p.data)]
        case .activation(let p)?:
            switch p.nonlinearityType {
            case .preLu(let a)?: return [("alpha", a.alpha)]
            case .parametricSoftplus(let a)?: return [("alpha", a.alpha), ("beta", a.beta)]
            default: return []
            }
        case .uniDirectionalLstm(let p)?:
            let w = p.weightParams
            var list: [(String, CoreML_Specification_WeightParams)] = [
                ("inputGateWeightMatrix", w.inputGateWeightMatrix), ("forgetGateWeightMatrix", w.forgetGateWeightMatrix),
                ("blockInputWeightMatrix", w.blockInputWeightMatrix), ("outputGateWeightMatrix", w.outputGateWeightMatrix),
                ("inputGateRecursionMatrix", w.inputGateRecursionMatrix), ("forgetGateRecursionMatrix", w.forgetGateRecursionMatrix),
                ("blockInputRecursionMatrix", w.blockInputRecursionMatrix), ("outputGateRecursionMatrix", w.outputGateRecursionMatrix),
            ]
            if p.params.hasBiasVectors_p {
                list += [("inputGateBiasVector", w.inputGateBiasVector), ("forgetGateBiasVector", w.forgetGateBiasVector),
                         ("blockInputBiasVector", w.blockInputBiasVector), ("outputGateBiasVector", w.outputGateBiasVector)]
            }
            if p.params.hasPeepholeVectors_p {
                list += [("inputGatePeepholeVector", w.inputGatePeepholeVector),
                         ("forgetGatePeepholeVector", w.forgetGatePeepholeVector),
                         ("outputGatePeepholeVector", w.outputGatePeepholeVector)]
            }
            return list
        default:
            return []
        }
    }

    /// The number of weights and biases the layer holds.
    public var parameterCount: Int {
        namedWeights.reduce(0) { $0 + $1.weights.count }
    }
}
