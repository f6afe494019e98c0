import CoreMLSpec

/// Padding before and after one spatial dimension.
public struct EdgeSizes: Equatable, Sendable {
    /// Pixels added before the first row or column.
    public let startEdgeSize: UInt
    /// Pixels added after the last row or column.
    public let endEdgeSize: UInt

    /// Padding of `startEdgeSize` pixels before and `endEdgeSize` after.
    public init(startEdgeSize: UInt, endEdgeSize: UInt) {
        self.startEdgeSize = startEdgeSize
        self.endEdgeSize = endEdgeSize
    }
}

/// Where "same" padding puts the odd pixel.
public enum PaddingMode: Sendable {
    /// The odd pixel goes after (bottom or right) or before (top or left).
    case bottomRightHeavy, topLeftHeavy
}

/// A convolution's padding: explicit border amounts (height, then width), or "same".
public enum ConvolutionPaddingType: Sendable {
    /// Explicit padding: two edge sizes, for the height and then the width, or none for no padding.
    case valid(borderAmounts: [EdgeSizes])
    /// Enough padding that the output has `⌈input / stride⌉` positions in each dimension.
    case same(mode: PaddingMode)
}

/// A pooling layer's padding: like a convolution's, plus Core ML's legacy "include last pixel".
public enum PoolingPaddingType: Sendable {
    /// Explicit padding: two edge sizes, for the height and then the width, or none for no padding.
    case valid(borderAmounts: [EdgeSizes])
    /// Enough padding that the output has `⌈input / stride⌉` positions in each dimension.
    case same(mode: PaddingMode)
    /// Core ML's legacy padding: the amounts (height, width) are added on both sides, and a last
    /// window that starts inside the input is kept.
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
