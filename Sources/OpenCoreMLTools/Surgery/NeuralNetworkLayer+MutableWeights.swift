import CoreMLSpec

extension CoreML_Specification_NeuralNetworkLayer {
    /// Calls `body` on each weight blob of the layer (the ones `namedWeights` lists), in place.
    mutating func forEachWeight(_ body: (String, inout CoreML_Specification_WeightParams) throws -> Void) rethrows {
        switch layer {
        case .convolution(var p)?:
            try body("weights", &p.weights)
            if p.hasBias_p { try body("bias", &p.bias) }
            convolution = p
        case .innerProduct(var p)?:
            try body("weights", &p.weights)
            if p.hasBias_p { try body("bias", &p.bias) }
            innerProduct = p
        case .embedding(var p)?:
            try body("weights", &p.weights)
            if p.hasBias_p { try body("bias", &p.bias) }
            embedding = p
        case .batchedMatmul(var p)?:
            try body("weights", &p.weights)
            if p.hasBias_p { try body("bias", &p.bias) }
            batchedMatmul = p
        case .batchnorm(var p)?:
            try body("gamma", &p.gamma)
            try body("beta", &p.beta)
            if !p.computeMeanVar {
                try body("mean", &p.mean)
                try body("variance", &p.variance)
            }
            batchnorm = p
        case .scale(var p)?:
            try body("scale", &p.scale)
            if p.hasBias_p { try body("bias", &p.bias) }
            scale = p
        case .bias(var p)?:
            try body("bias", &p.bias)
            bias = p
        case .activation(var p)?:
            if case .preLu(var a)? = p.nonlinearityType {
                try body("alpha", &a.alpha)
                p.preLu = a
            } else if case .parametricSoftplus(var a)? = p.nonlinearityType {
                try body("alpha", &a.alpha)
                try body("beta", &a.beta)
                p.parametricSoftplus = a
            }
            activation = p
        case .uniDirectionalLstm(var p)?:
            var w = p.weightParams
            let matrices: [(String, WritableKeyPath<CoreML_Specification_LSTMWeightParams, CoreML_Specification_WeightParams>)] = [
                ("inputGateWeightMatrix", \.inputGateWeightMatrix), ("forgetGateWeightMatrix", \.forgetGateWeightMatrix),
                ("blockInputWeightMatrix", \.blockInputWeightMatrix), ("outputGateWeightMatrix", \.outputGateWeightMatrix),
                ("inputGateRecursionMatrix", \.inputGateRecursionMatrix), ("forgetGateRecursionMatrix", \.forgetGateRecursionMatrix),
                ("blockInputRecursionMatrix", \.blockInputRecursionMatrix), ("outputGateRecursionMatrix", \.outputGateRecursionMatrix),
            ]
            let biases: [(String, WritableKeyPath<CoreML_Specification_LSTMWeightParams, CoreML_Specification_WeightParams>)] = [
                ("inputGateBiasVector", \.inputGateBiasVector), ("forgetGateBiasVector", \.forgetGateBiasVector),
                ("blockInputBiasVector", \.blockInputBiasVector), ("outputGateBiasVector", \.outputGateBiasVector),
            ]
            let peepholes: [(String, WritableKeyPath<CoreML_Specification_LSTMWeightParams, CoreML_Specification_WeightParams>)] = [
                ("inputGatePeepholeVector", \.inputGatePeepholeVector), ("forgetGatePeepholeVector", \.forgetGatePeepholeVector),
                ("outputGatePeepholeVector", \.outputGatePeepholeVector),
            ]
            for (name, path) in matrices + (p.params.hasBiasVectors_p ? biases : []) + (p.params.hasPeepholeVectors_p ? peepholes : []) {
                try body(name, &w[keyPath: path])
            }
            p.weightParams = w
            uniDirectionalLstm = p
        default:
            break
        }
    }
}
