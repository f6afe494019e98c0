extension CoreML_Specification_NeuralNetworkLayer {
    /// Weight counts must match the sizes the layer declares, or the file is corrupt.
    func validateWeights(in context: inout ValidationContext) {
        switch layer {
        case .innerProduct(let p)?:
            if p.inputChannels == 0 || p.outputChannels == 0 {
                context.fail("inputChannels and outputChannels must be positive")
            }
            expect(p.weights, "weights", Int(p.inputChannels * p.outputChannels), in: &context)
            if p.hasBias { expect(p.bias, "bias", Int(p.outputChannels), in: &context) }
        case .convolution(let p)?:
            let groups = max(Int(p.nGroups), 1)
            let kernel = p.kernelSize.isEmpty ? [3, 3] : p.kernelSize.map(Int.init)
            guard kernel.count == 2, kernel.allSatisfy({ $0 > 0 }) else {
                context.fail("kernelSize \(p.kernelSize) must be two positive sizes")
                return
            }
            if p.outputChannels == 0 || p.kernelChannels == 0 {
                context.fail("outputChannels and kernelChannels must be positive")
            }
            if Int(p.outputChannels) % groups != 0 {
                context.fail("outputChannels \(p.outputChannels) is not divisible by the \(groups) groups")
            }
            if !p.stride.isEmpty && (p.stride.count != 2 || p.stride.contains(0)) {
                context.fail("stride \(p.stride) must be two positive sizes")
            }
            if !p.dilationFactor.isEmpty && (p.dilationFactor.count != 2 || p.dilationFactor.contains(0)) {
                context.fail("dilationFactor \(p.dilationFactor) must be two positive sizes")
            }
            let count = p.isDeconvolution
                ? Int(p.kernelChannels) * Int(p.outputChannels) / groups * kernel[0] * kernel[1]
                : Int(p.outputChannels) * Int(p.kernelChannels) * kernel[0] * kernel[1]
            expect(p.weights, "weights", count, in: &context)
            if p.hasBias { expect(p.bias, "bias", Int(p.outputChannels), in: &context) }
        case .batchnorm(let p)?:
            let channels = Int(p.channels)
            if channels == 0 { context.fail("channels must be positive") }
            expect(p.gamma, "gamma", channels, in: &context)
            expect(p.beta, "beta", channels, in: &context)
            if !p.computeMeanVar {
                expect(p.mean, "mean", channels, in: &context)
                expect(p.variance, "variance", channels, in: &context)
            }
        case .embedding(let p)?:
            expect(p.weights, "weights", Int(p.inputDim * p.outputChannels), in: &context)
            if p.hasBias { expect(p.bias, "bias", Int(p.outputChannels), in: &context) }
        case .pooling(let p)?:
            if !p.globalPooling && !p.kernelSize.isEmpty && (p.kernelSize.count != 2 || p.kernelSize.contains(0)) {
                context.fail("kernelSize \(p.kernelSize) must be two positive sizes")
            }
        default:
            break
        }
    }

    private func expect(
        _ weights: CoreML_Specification_WeightParams, _ name: String, _ count: Int, in context: inout ValidationContext
    ) {
        if weights.count != count {
            context.fail("\(name) holds \(weights.count) values; the layer's sizes need \(count)")
        }
    }
}
