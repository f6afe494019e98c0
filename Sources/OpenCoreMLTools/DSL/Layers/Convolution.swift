import CoreMLSpec

/// A 2-D convolution (or, with `deconvolution: true`, a transposed one). Weights are
/// `[outputChannels, kernelChannels, kernelHeight, kernelWidth]` (deconvolution:
/// `[kernelChannels, outputChannels / nGroups, kernelHeight, kernelWidth]`); without them,
/// Glorot-uniform values seeded by the layer's name. Without a bias, zeros.
public struct Convolution: Layer {
    public let name: String
    public let input: [String]
    public let output: [String]
    public let weight: [Float]?
    public let bias: [Float]?
    public let outputChannels: UInt
    public let kernelChannels: UInt
    public let nGroups: UInt
    public let kernelSize: [UInt]
    public let stride: [UInt]
    public let dilationFactor: [UInt]
    public let paddingType: ConvolutionPaddingType
    public let outputShape: [UInt]
    public let deconvolution: Bool
    public let updatable: Bool

    public init(name: String, input: [String], output: [String], weight: [Float]? = nil, bias: [Float]? = nil,
                outputChannels: UInt, kernelChannels: UInt, nGroups: UInt = 1, kernelSize: [UInt], stride: [UInt] = [1, 1],
                dilationFactor: [UInt] = [1, 1], paddingType: ConvolutionPaddingType = .valid(borderAmounts: []),
                outputShape: [UInt] = [], deconvolution: Bool = false, updatable: Bool = false) {
        self.name = name
        self.input = input
        self.output = output
        self.weight = weight
        self.bias = bias
        self.outputChannels = outputChannels
        self.kernelChannels = kernelChannels
        self.nGroups = nGroups
        self.kernelSize = kernelSize
        self.stride = stride
        self.dilationFactor = dilationFactor
        self.paddingType = paddingType
        self.outputShape = outputShape
        self.deconvolution = deconvolution
        self.updatable = updatable
    }

    public func layerSpecification() throws -> CoreML_Specification_NeuralNetworkLayer {
        for (what, values) in [("kernelSize", kernelSize), ("stride", stride), ("dilationFactor", dilationFactor)] {
            guard values.count == 2, !values.contains(0) else {
                throw ModelToolsError(location, "\(what) needs two positive values (height, width), got \(values)")
            }
        }
        guard outputChannels > 0, kernelChannels > 0, nGroups > 0, outputChannels % nGroups == 0 else {
            throw ModelToolsError(location, "outputChannels (\(outputChannels)) and kernelChannels (\(kernelChannels)) must be positive and outputChannels divisible by nGroups (\(nGroups))")
        }
        var layer = try baseSpecification(input: input, output: output, updatable: updatable)
        var params = CoreML_Specification_ConvolutionLayerParams()
        params.outputChannels = UInt64(outputChannels)
        params.kernelChannels = UInt64(kernelChannels)
        params.nGroups = UInt64(nGroups)
        params.kernelSize = kernelSize.map { UInt64($0) }
        params.stride = stride.map { UInt64($0) }
        params.dilationFactor = dilationFactor.map { UInt64($0) }
        switch paddingType {
        case .valid(let borders): params.valid = try CoreML_Specification_ValidPadding(borders, location: location)
        case .same(let mode): params.same = CoreML_Specification_SamePadding(mode)
        }
        params.isDeconvolution = deconvolution
        params.outputShape = outputShape.map { UInt64($0) }
        params.hasBias_p = true
        layer.convolution = params
        let area = Int(kernelSize[0] * kernelSize[1])
        let (out, kernel, groups) = (Int(outputChannels), Int(kernelChannels), Int(nGroups))
        try setWeights("weights", of: &layer, to: weight, what: "weight", fanIn: kernel * area, fanOut: out / groups * area, updatable: updatable)
        try setWeights("bias", of: &layer, to: bias, what: "bias", fill: 0, updatable: updatable)
        return layer
    }
}
