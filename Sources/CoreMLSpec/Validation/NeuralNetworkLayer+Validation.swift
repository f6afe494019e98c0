extension CoreML_Specification_NeuralNetworkLayer {
    /// The layer's declared sizes must make sense, and each weight blob the layer table lists
    /// (`weightBlobs`) must hold the values those sizes call for, or the file is corrupt.
    ///
    /// As in Core ML, a flag decides whether a blob is there: a layer whose `hasBias` is set needs
    /// its bias values. Core ML does not reject the reverse (bias values with the flag off): they
    /// are ignored, and so they are here.
    func validateWeights(in context: inout ValidationContext) {
        guard validateSizes(in: &context) else { return }
        for blob in weightBlobs {
            validate(blob, in: &context)
        }
        switch layer {
        case .convolution(let p)? where input.count > 1 && p.hasBias_p:
            context.fail("hasBias is set, but a convolution that takes its weights from a second input has no bias")
        case .batchedMatmul(let p)? where input.count > 1 && p.hasBias_p:
            context.fail("hasBias is set, but a batchedMatmul with two inputs has no bias (only one input comes with weights)")
        default:
            break
        }
    }

    /// Sizes the layer declares for its computation, beyond its weight counts; false when they are
    /// too broken for weight counts to mean anything.
    private func validateSizes(in context: inout ValidationContext) -> Bool {
        switch layer {
        case .innerProduct(let p)?:
            if p.inputChannels == 0 || p.outputChannels == 0 {
                context.fail("inputChannels and outputChannels must be positive")
            }
        case .convolution(let p)?:
            if !p.kernelSize.isEmpty && (p.kernelSize.count != 2 || p.kernelSize.contains(0)) {
                context.fail("kernelSize \(p.kernelSize) must be two positive sizes")
                return false
            }
            if p.outputChannels == 0 || p.kernelChannels == 0 {
                context.fail("outputChannels and kernelChannels must be positive")
            }
            let groups = Swift.max(p.nGroups, 1)
            if p.outputChannels % groups != 0 {
                context.fail("outputChannels \(p.outputChannels) is not divisible by the \(groups) groups")
            }
            if !p.stride.isEmpty && (p.stride.count != 2 || p.stride.contains(0)) {
                context.fail("stride \(p.stride) must be two positive sizes")
            }
            if !p.dilationFactor.isEmpty && (p.dilationFactor.count != 2 || p.dilationFactor.contains(0)) {
                context.fail("dilationFactor \(p.dilationFactor) must be two positive sizes")
            }
        case .batchnorm(let p)?:
            if p.channels == 0 { context.fail("channels must be positive") }
        case .pooling(let p)?:
            if !p.globalPooling && !p.kernelSize.isEmpty && (p.kernelSize.count != 2 || p.kernelSize.contains(0)) {
                context.fail("kernelSize \(p.kernelSize) must be two positive sizes")
            }
            if !p.globalPooling && !p.stride.isEmpty && (p.stride.count != 2 || p.stride.contains(0)) {
                context.fail("stride \(p.stride) must be two positive sizes")
            }
        default:
            break
        }
        return true
    }

    /// One blob: a single storage field, and the expected number of values.
    private func validate(_ blob: LayerWeight, in context: inout ValidationContext) {
        let weights = self[keyPath: blob.path]
        if weights.filledStorageCount > 1 {
            context.fail("\(blob.name) stores values in more than one field (float32, float16, raw, int8); one is read")
        }
        switch weights.storage {
        case .float16 where weights.float16Value.count % 2 != 0:
            context.fail("\(blob.name) has \(weights.float16Value.count) bytes of float16 values, an odd number (each value takes 2)")
            return
        case .raw where weights.hasQuantization && !(1...8).contains(weights.codeBits ?? 0):
            context.fail("\(blob.name) is quantized with \(weights.quantization.numberOfBits) bits; 1 to 8 are supported")
            return
        case .raw where !weights.hasQuantization && weights.rawValue.count % 4 != 0:
            context.fail("\(blob.name) has \(weights.rawValue.count) raw bytes of float32 values, not a multiple of 4")
            return
        default:
            break
        }
        switch blob.expectedCount {
        case .exactly(let expected):
            if weights.storage == .empty && expected > 0 {
                let flag = blob.flag.map { "\($0) is set, but " } ?? ""
                context.fail("\(flag)\(blob.name) holds no values; the layer's sizes need \(expected)")
            } else if !weights.holds(expected) {
                context.fail("\(blob.name) holds \(weights.count) values; the layer's sizes need \(expected)")
            }
        case .fromInput:
            if weights.storage == .empty {
                let flag = blob.flag.map { "\($0) is set, but " } ?? ""
                context.fail("\(flag)\(blob.name) holds no values")
            }
        case .overflow(let sizes):
            context.fail("\(blob.name) would need \(sizes.map(String.init).joined(separator: " × ")) values, more than any file can hold")
        }
    }
}
