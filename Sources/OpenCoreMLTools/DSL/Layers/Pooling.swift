import CoreMLSpec

/// How a pooling window is reduced.
public enum PoolingType: Sendable {
    /// The largest value, the mean, or the square root of the sum of squares.
    case max, average, l2
}

/// Max, average or L2 pooling over 2-D windows, or over the whole plane with `globalPooling`.
public struct Pooling: Layer {
    /// The layer's name, unique in the network.
    public let name: String
    /// The blob the layer reads, `C × H × W`.
    public let input: [String]
    /// The blob the layer writes.
    public let output: [String]
    /// How each window is reduced.
    public let poolingType: PoolingType
    /// The window's height and width.
    public let kernelSize: [UInt]
    /// The step between windows, vertically and horizontally.
    public let stride: [UInt]
    /// How the borders are padded (no padding by default).
    public let paddingType: PoolingPaddingType
    /// For average pooling, whether padded positions are left out of the mean (true by default).
    public let avgPoolExcludePadding: Bool
    /// Whether each channel's whole plane is one window (false by default); the kernel size and stride
    /// are then ignored.
    public let globalPooling: Bool

    /// A pooling layer.
    ///
    /// ```swift
    /// Pooling(name: "pool1", input: ["relu1_out"], output: ["pool1_out"],
    ///         poolingType: .max, kernelSize: [2, 2], stride: [2, 2])
    /// ```
    public init(name: String, input: [String], output: [String], poolingType: PoolingType, kernelSize: [UInt],
                stride: [UInt], paddingType: PoolingPaddingType = .valid(borderAmounts: []),
                avgPoolExcludePadding: Bool = true, globalPooling: Bool = false) {
        self.name = name
        self.input = input
        self.output = output
        self.poolingType = poolingType
        self.kernelSize = kernelSize
        self.stride = stride
        self.paddingType = paddingType
        self.avgPoolExcludePadding = avgPoolExcludePadding
        self.globalPooling = globalPooling
    }

    /// The layer as the format stores it, with its `pooling` parameters set.
    ///
    /// - Throws: A ``ModelToolsError`` when, without global pooling, the kernel size or stride is not
    ///   two positive values, or the padding amounts are not two values.
    public func layerSpecification() throws -> CoreML_Specification_NeuralNetworkLayer {
        for (what, values) in [("kernelSize", kernelSize), ("stride", stride)] where !globalPooling {
            guard values.count == 2, !values.contains(0) else {
                throw ModelToolsError(location, "\(what) needs two positive values (height, width), got \(values)")
            }
        }
        var layer = try baseSpecification(input: input, output: output)
        var params = CoreML_Specification_PoolingLayerParams()
        switch poolingType {
        case .max: params.type = .max
        case .average: params.type = .average
        case .l2: params.type = .l2
        }
        params.kernelSize = kernelSize.map { UInt64($0) }
        params.stride = stride.map { UInt64($0) }
        switch paddingType {
        case .valid(let borders): params.valid = try CoreML_Specification_ValidPadding(borders, location: location)
        case .same(let mode): params.same = CoreML_Specification_SamePadding(mode)
        case .includeLastPixel(let amounts):
            guard amounts.count == 2 else {
                throw ModelToolsError(location, "includeLastPixel padding needs two amounts (height, width), got \(amounts.count)")
            }
            params.includeLastPixel.paddingAmounts = amounts.map { UInt64($0) }
        }
        params.avgPoolExcludePadding = avgPoolExcludePadding
        params.globalPooling = globalPooling
        layer.pooling = params
        return layer
    }
}
