import CoreMLSpec

/// How a pooling window is reduced.
public enum PoolingType: Sendable {
    case max, average, l2
}

/// Max, average or L2 pooling over 2-D windows, or over the whole plane with `globalPooling`.
public struct Pooling: Layer {
    public let name: String
    public let input: [String]
    public let output: [String]
    public let poolingType: PoolingType
    public let kernelSize: [UInt]
    public let stride: [UInt]
    public let paddingType: PoolingPaddingType
    public let avgPoolExcludePadding: Bool
    public let globalPooling: Bool

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
