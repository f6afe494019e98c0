import CoreMLSpec

/// A 2-D convolution (or, with `deconvolution: true`, a transposed one). Weights are
/// `[outputChannels, kernelChannels, kernelHeight, kernelWidth]` (deconvolution:
/// `[kernelChannels, outputChannels / nGroups, kernelHeight, kernelWidth]`); without them,
/// Glorot-uniform values seeded by the layer's name. Without a bias, zeros.
public struct Convolution: Layer {
    /// The layer's name, unique in the network.
    public let name: String
    /// The blob the layer reads, `C × H × W`.
    public let input: [String]
    /// The blob the layer writes.
    public let output: [String]
    /// The kernels, laid out as the type's description says; nil for Glorot-uniform values seeded by the
    /// layer's name.
    public let weight: [Float]?
    /// One bias per output channel; nil for zeros.
    public let bias: [Float]?
    /// The number of output channels.
    public let outputChannels: UInt
    /// The number of input channels each kernel reads: the input's channels divided by ``nGroups``.
    public let kernelChannels: UInt
    /// The number of groups the channels are split into (1 by default; the channel count for a
    /// depthwise convolution).
    public let nGroups: UInt
    /// The kernel's height and width.
    public let kernelSize: [UInt]
    /// The step between kernel positions, vertically and horizontally (`[1, 1]` by default).
    public let stride: [UInt]
    /// The spacing of kernel taps, vertically and horizontally (`[1, 1]` by default).
    public let dilationFactor: [UInt]
    /// How the borders are padded (no padding by default).
    public let paddingType: ConvolutionPaddingType
    /// For a deconvolution, the output's height and width; empty to let the format work them out.
    public let outputShape: [UInt]
    /// Whether the layer is a transposed convolution (false by default).
    public let deconvolution: Bool
    /// Whether training may change the weights and bias (false by default).
    public let updatable: Bool

    /// A convolution layer.
    ///
    /// ```swift
    /// Convolution(name: "conv1", input: ["image"], output: ["conv1_out"],
    ///             outputChannels: 32, kernelChannels: 1, kernelSize: [3, 3], updatable: true)
    /// ```
    ///
    /// - Parameters:
    ///   - name: The layer's name, unique in the network.
    ///   - input: The blob the layer reads.
    ///   - output: The blob the layer writes.
    ///   - weight: The kernels; nil for Glorot-uniform values seeded by the layer's name.
    ///   - bias: One bias per output channel; nil for zeros.
    ///   - outputChannels: The number of output channels.
    ///   - kernelChannels: The number of input channels each kernel reads.
    ///   - nGroups: The number of channel groups.
    ///   - kernelSize: The kernel's height and width.
    ///   - stride: The step between kernel positions.
    ///   - dilationFactor: The spacing of kernel taps.
    ///   - paddingType: How the borders are padded.
    ///   - outputShape: A deconvolution's output height and width, or empty.
    ///   - deconvolution: Whether the layer is a transposed convolution.
    ///   - updatable: Whether training may change the weights and bias.
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

    /// The layer as the format stores it, with its `convolution` parameters, weights and bias set.
    ///
    /// - Throws: A ``ModelToolsError`` when the kernel size, stride or dilation is not two positive
    ///   values, a channel count is not positive or not divisible by the groups, or the weights or bias
    ///   have the wrong count.
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
