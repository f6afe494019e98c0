import CoreMLSpec

/// Padding before and after one spatial dimension.
public struct EdgeSizes: Equatable, Sendable {
    public let startEdgeSize: UInt
    public let endEdgeSize: UInt

    public init(startEdgeSize: UInt, endEdgeSize: UInt) {
        self.startEdgeSize = startEdgeSize
        self.endEdgeSize = endEdgeSize
    }
}

/// Where "same" padding puts the odd pixel.
public enum PaddingMode: Sendable {
    case bottomRightHeavy, topLeftHeavy
}

/// A convolution's padding: explicit border amounts (height, then width), or "same".
public enum ConvolutionPaddingType: Sendable {
    case valid(borderAmounts: [EdgeSizes])
    case same(mode: PaddingMode)
}

/// A pooling layer's padding: like a convolution's, plus Core ML's legacy "include last pixel".
public enum PoolingPaddingType: Sendable {
    case valid(borderAmounts: [EdgeSizes])
    case same(mode: PaddingMode)
    case includeLastPixel(paddingAmounts: [UInt])
}

extension CoreML_Specification_ValidPadding {
    init(_ borders: [EdgeSizes], location: String) throws {
        self.init()
        guard borders.isEmpty || borders.count == 2 else {
            throw ModelToolsError(location, "valid padding needs two border amounts (height, width), got \(borders.count)")
        }
        if !borders.isEmpty {
            paddingAmounts.borderAmounts = borders.map {
                var edge = CoreML_Specification_BorderAmounts.EdgeSizes()
                edge.startEdgeSize = UInt64($0.startEdgeSize)
                edge.endEdgeSize = UInt64($0.endEdgeSize)
                return edge
            }
        }
    }
}

extension CoreML_Specification_SamePadding {
    init(_ mode: PaddingMode) {
        self.init()
        asymmetryMode = mode == .bottomRightHeavy ? .bottomRightHeavy : .topLeftHeavy
    }
}
