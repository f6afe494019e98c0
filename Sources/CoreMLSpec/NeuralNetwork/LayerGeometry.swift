// The sizes layers declare, read the way the layer table's shape rules (LayerShapes.swift) and the
// engine's layer nodes both use them: window geometry, scaling factors, axes, parameter shapes.

/// The largest size a layer may declare for one axis (kernels, strides, channels, …); larger
/// ones are rejected rather than overflowing the arithmetic.
let largestDeclaredSize = Int(Int32.max)

/// A declared size as an `Int`, or an error naming `what` when it is negative or larger than
/// `largestDeclaredSize`.
package func declared(_ value: some BinaryInteger, _ what: String) throws(LayerSpecificationError) -> Int {
    guard let size = checkedSize(value, limit: largestDeclaredSize) else {
        throw LayerSpecificationError(SizeCheckFailure.size(value, limit: largestDeclaredSize, what: what))
    }
    return size
}

/// Declared sizes as `Int`s, or an error naming `what` and the first size that is negative or
/// larger than `largestDeclaredSize`.
package func declaredSizes<T: BinaryInteger>(_ values: [T], _ what: String) throws(LayerSpecificationError) -> [Int] {
    var sizes: [Int] = []
    sizes.reserveCapacity(values.count)
    for value in values { sizes.append(try declared(value, what)) }
    return sizes
}

/// Throws unless an input plane of `height`×`width` has sides of at most `largestDeclaredSize`,
/// which keeps the window arithmetic (sides plus padding, strides times outputs) inside an `Int`.
func checkPlane(height: Int, width: Int) throws(LayerSpecificationError) {
    guard checkedSize(height, limit: largestDeclaredSize) != nil, checkedSize(width, limit: largestDeclaredSize) != nil else {
        throw LayerSpecificationError("an input plane of \(height)×\(width) is too large (at most \(largestDeclaredSize) per side)")
    }
}

/// Two declared sizes `[height, width]` when two are given, else `fallback`.
package func declaredPair(_ values: [UInt64], _ what: String, fallback: (Int, Int)) throws -> (Int, Int) {
    guard values.count == 2 else { return fallback }
    return (try declared(values[0], what), try declared(values[1], what))
}

func describe(_ dims: [Int]) -> String { dims.map(String.init).joined(separator: "×") }

extension CoreML_Specification_ConvolutionLayerParams {
    /// The kernel, stride and dilation as `(height, width)`: the declared pair, or Core ML's
    /// defaults (3×3, 1×1, 1×1).
    package func windowSizes() throws -> (kernel: (Int, Int), stride: (Int, Int), dilation: (Int, Int)) {
        (try declaredPair(kernelSize, "kernelSize", fallback: (3, 3)), try declaredPair(stride, "stride", fallback: (1, 1)),
         try declaredPair(dilationFactor, "dilationFactor", fallback: (1, 1)))
    }

    /// Where the kernel falls on an input plane of `height`×`width`: valid padding (with explicit
    /// amounts), same padding, or none; nil when the plane is smaller than the kernel.
    package func geometry(height h: Int, width w: Int) throws -> Window2D? {
        try checkPlane(height: h, width: w)
        let (kernel, stride, dilation) = try windowSizes()
        guard stride.0 > 0, stride.1 > 0 else { throw LayerSpecificationError("stride \(self.stride) must be two positive sizes") }
        let padding: Window2D.Padding
        switch convolutionPaddingType {
        case .same(let same)?: padding = .same(topLeftHeavy: same.asymmetryMode == .topLeftHeavy)
        case .valid(let valid)?: padding = try explicitPadding(valid.paddingAmounts, ceil: false)
        case nil: padding = .explicit()
        }
        return Window2D(height: h, width: w, kernel: kernel, stride: stride, dilation: dilation, padding: padding)
    }
}

/// Where a deconvolution (transposed convolution) puts its output: input position `i` of an axis
/// feeds output positions `i·stride + k·dilation − before` for every kernel tap `k`.
package struct TransposedWindow2D: Equatable, Sendable {
    package var outputHeight: Int
    package var outputWidth: Int
    /// The rows and columns of the full output taken off its top and left.
    package var padTop: Int
    package var padLeft: Int

    package init(outputHeight: Int, outputWidth: Int, padTop: Int, padLeft: Int) {
        (self.outputHeight, self.outputWidth, self.padTop, self.padLeft) = (outputHeight, outputWidth, padTop, padLeft)
    }
}

extension CoreML_Specification_ConvolutionLayerParams {
    /// A deconvolution's output on an input plane of `height`×`width`, as Core ML sizes it: the
    /// full output `(in − 1)·stride + (kernel − 1)·dilation + 1` less valid padding's amounts,
    /// or `in·stride` for same padding (the extra split evenly, the odd one at the bottom/right, or
    /// at the top/left for `TOP_LEFT_HEAVY`); `outputShape` (`[H, W]`), when given, sets the size.
    ///
    /// - Throws: when the padding or `outputShape` leaves no output, or sizes overflow.
    package func transposedGeometry(height h: Int, width w: Int) throws -> TransposedWindow2D {
        try checkPlane(height: h, width: w)
        let (kernel, stride, dilation) = try windowSizes()
        guard stride.0 > 0, stride.1 > 0, dilation.0 > 0, dilation.1 > 0, kernel.0 > 0, kernel.1 > 0 else {
            throw LayerSpecificationError("kernelSize \(kernelSize), stride \(self.stride) and dilationFactor \(dilationFactor) must be positive")
        }
        func full(_ input: Int, _ k: Int, _ s: Int, _ d: Int) throws -> Int {
            let (stretched, o1) = (input - 1).multipliedReportingOverflow(by: s)
            let (reach, o2) = (k - 1).multipliedReportingOverflow(by: d)
            guard !o1, !o2, stretched <= largestDeclaredSize, reach <= largestDeclaredSize else {
                throw LayerSpecificationError("a deconvolution of a \(h)×\(w) plane is too large")
            }
            return stretched + reach + 1
        }
        let fullSize = (try full(h, kernel.0, stride.0, dilation.0), try full(w, kernel.1, stride.1, dilation.1))
        var window: TransposedWindow2D
        switch convolutionPaddingType {
        case .same(let same)?:
            let size = (h * stride.0, w * stride.1)
            let extra = (max(fullSize.0 - size.0, 0), max(fullSize.1 - size.1, 0))
            let topLeftHeavy = same.asymmetryMode == .topLeftHeavy
            window = TransposedWindow2D(outputHeight: size.0, outputWidth: size.1,
                                        padTop: topLeftHeavy ? extra.0 - extra.0 / 2 : extra.0 / 2,
                                        padLeft: topLeftHeavy ? extra.1 - extra.1 / 2 : extra.1 / 2)
        case .valid(let valid)?:
            let borders = valid.paddingAmounts.borderAmounts
            var amounts = (top: 0, bottom: 0, left: 0, right: 0)
            if borders.count == 2 {
                amounts = (try declared(borders[0].startEdgeSize, "padding"), try declared(borders[0].endEdgeSize, "padding"),
                           try declared(borders[1].startEdgeSize, "padding"), try declared(borders[1].endEdgeSize, "padding"))
            }
            window = TransposedWindow2D(outputHeight: fullSize.0 - amounts.top - amounts.bottom, outputWidth: fullSize.1 - amounts.left - amounts.right,
                                        padTop: amounts.top, padLeft: amounts.left)
        case nil:
            window = TransposedWindow2D(outputHeight: fullSize.0, outputWidth: fullSize.1, padTop: 0, padLeft: 0)
        }
        if !outputShape.isEmpty {
            guard outputShape.count == 2 else { throw LayerSpecificationError("outputShape \(outputShape) must be [H, W]") }
            window.outputHeight = try declared(outputShape[0], "outputShape")
            window.outputWidth = try declared(outputShape[1], "outputShape")
        }
        guard window.outputHeight > 0, window.outputWidth > 0 else {
            throw LayerSpecificationError("the deconvolution of a \(h)×\(w) plane leaves no output (\(window.outputHeight)×\(window.outputWidth))")
        }
        return window
    }
}

/// Explicit `[top/bottom, left/right]` border amounts (none unless two are given) as `.explicit`,
/// or as `.ceil` (pooling's include-last-pixel windows).
private func explicitPadding(_ amounts: CoreML_Specification_BorderAmounts, ceil: Bool) throws -> Window2D.Padding {
    let borders = amounts.borderAmounts
    guard borders.count == 2 else { return ceil ? .ceil() : .explicit() }
    let (top, bottom) = (try declared(borders[0].startEdgeSize, "padding"), try declared(borders[0].endEdgeSize, "padding"))
    let (left, right) = (try declared(borders[1].startEdgeSize, "padding"), try declared(borders[1].endEdgeSize, "padding"))
    return ceil ? .ceil(top: top, bottom: bottom, left: left, right: right) : .explicit(top: top, bottom: bottom, left: left, right: right)
}

extension CoreML_Specification_PoolingLayerParams {
    /// Where the window falls on an input plane of `height`×`width`: the whole plane for global
    /// pooling; otherwise valid (explicit amounts), same, or Caffe-style include-last-pixel padding
    /// (Core ML's default, without padding; the same amount on both sides). Nil when the plane is
    /// smaller than the window.
    package func geometry(height h: Int, width w: Int) throws -> Window2D? {
        try checkPlane(height: h, width: w)
        if globalPooling { return Window2D(height: h, width: w, kernel: (h, w), stride: (1, 1), padding: .explicit()) }
        let kernel = try declaredPair(kernelSize, "kernelSize", fallback: (3, 3))
        let stride = try declaredPair(stride, "stride", fallback: (1, 1))
        guard stride.0 > 0, stride.1 > 0 else { throw LayerSpecificationError("stride \(self.stride) must be two positive sizes") }
        let padding: Window2D.Padding
        switch poolingPaddingType {
        case .valid(let valid)?: padding = try explicitPadding(valid.paddingAmounts, ceil: false)
        case .same(let same)?: padding = .same(topLeftHeavy: same.asymmetryMode == .topLeftHeavy)
        case .includeLastPixel(let last)?:
            let amounts = last.paddingAmounts
            let (top, left) = amounts.count == 2 ? (try declared(amounts[0], "padding"), try declared(amounts[1], "padding")) : (0, 0)
            padding = .ceil(top: top, bottom: top, left: left, right: left)
        // Core ML's default padding mode is include-last-pixel with no padding.
        case nil: padding = .ceil()
        }
        return Window2D(height: h, width: w, kernel: kernel, stride: stride, padding: padding)
    }
}

extension CoreML_Specification_UpsampleLayerParams {
    /// The factors H and W grow by: `scalingFactor` (integers, default `[1, 1]`) or
    /// `fractionalScalingFactor`; throws when both are given or they are not two positive values.
    package func scalingFactors() throws -> (height: Double, width: Double) {
        let integer = scalingFactor, fraction = fractionalScalingFactor
        if !integer.isEmpty && !fraction.isEmpty {
            throw LayerSpecificationError("scalingFactor and fractionalScalingFactor are mutually exclusive")
        }
        let factor: (Double, Double)
        if !integer.isEmpty {
            factor = integer.count == 2 ? (Double(integer[0]), Double(integer[1])) : (0, 0)
        } else if !fraction.isEmpty {
            factor = fraction.count == 2 ? (Double(fraction[0]), Double(fraction[1])) : (0, 0)
        } else {
            factor = (1, 1)
        }
        guard factor.0 > 0, factor.1 > 0, factor.0 <= Double(largestDeclaredSize), factor.1 <= Double(largestDeclaredSize) else {
            throw LayerSpecificationError("the scaling factor must be two positive values [H, W], not \(integer.isEmpty ? fraction.map(String.init(describing:)) : integer.map(String.init))")
        }
        return factor
    }
}

extension CoreML_Specification_PermuteLayerParams {
    /// The permutation of `[Seq, C, H, W]`: output axis k is input axis `axes[k]`. An empty `axis`
    /// keeps the order; as an extension, a permutation of `[0, 1, 2]` reorders `[C, H, W]`.
    package func classicAxes() throws -> [Int] {
        let checked = axis.compactMap { checkedSize($0, limit: 3) }
        guard checked.count == axis.count else { throw LayerSpecificationError("axis \(axis) must be a permutation of [0, 1, 2, 3] (Seq, C, H, W)") }
        let given = checked
        let axes = given.count == 3 ? [0] + given.map { $0 + 1 } : given.isEmpty ? [0, 1, 2, 3] : given
        guard axes.count == 4, axes.sorted() == [0, 1, 2, 3] else {
            throw LayerSpecificationError("axis \(given) must be a permutation of [0, 1, 2, 3] (Seq, C, H, W)")
        }
        return axes
    }
}

extension CoreML_Specification_NeuralNetworkLayer {
    /// An axis of a rank-`rank` shape, counted from the end when negative (as rank-N layers take
    /// them); nil unless it lies in `-rank..<rank` (or `-rank...rank` when `allowingEnd`).
    package static func resolvedAxis(_ axis: Int64, rank: Int, allowingEnd: Bool = false) -> Int? {
        guard let value = Int(exactly: axis) else { return nil }
        let resolved = value < 0 ? value + rank : value
        return resolved >= 0 && resolved <= (allowingEnd ? rank : rank - 1) ? resolved : nil
    }
}

extension CoreML_Specification_NeuralNetworkLayer {
    /// How a `bias` or `scale` layer's parameter of declared `shape` (`[1]`, `[C]`, `[1, H, W]` or
    /// `[C, H, W]`; empty to infer it from `count`: 1, C or C×H×W) lies across an input of classic
    /// dimensions `input` (`[outer, C, H, W]`): its `[outer, C, H, W]` with `outer` 1, or why it
    /// does not fit.
    package static func classicParameterShape(declared shape: [UInt64], count: Int, input: [Int]) -> Result<[Int], LayerSpecificationError> {
        let x = ClassicShape(outer: input[0], channels: input[1], height: input[2], width: input[3])
        let s: [Int]
        do { s = try declaredSizes(shape, "shape") } catch { return .failure(error) }
        let plane = x.height * x.width
        let parameter: ClassicShape?
        switch s.count {
        case 0:
            parameter = count == 1 ? ClassicShape(channels: 1, height: 1, width: 1)
                : count == x.channels ? ClassicShape(channels: x.channels, height: 1, width: 1)
                : count == x.channels * plane ? ClassicShape(channels: x.channels, height: x.height, width: x.width)
                : nil
        case 1: parameter = ClassicShape(channels: s[0], height: 1, width: 1)
        case 3: parameter = ClassicShape(channels: s[0], height: s[1], width: s[2])
        default: return .failure(LayerSpecificationError("shape \(s) must be [1], [C], [1, H, W] or [C, H, W]"))
        }
        guard let parameter else {
            return .failure(LayerSpecificationError("\(count) values fit neither 1, C (\(x.channels)) nor C×H×W (\(x.channels * plane))"))
        }
        guard let declaredCount = checkedProduct([parameter.channels, parameter.height, parameter.width]) else {
            return .failure(LayerSpecificationError(SizeCheckFailure.product(s, what: "shape")))
        }
        guard declaredCount == count else {
            return .failure(LayerSpecificationError("shape \(s) needs \(declaredCount) values but \(count) are given"))
        }
        let spatialOK = (parameter.height == 1 && parameter.width == 1) || (parameter.height == x.height && parameter.width == x.width)
        guard spatialOK, parameter.channels == 1 || parameter.channels == x.channels else {
            return .failure(LayerSpecificationError("shape \(parameter.channels)×\(parameter.height)×\(parameter.width) does not fit an input of C×H×W \(x.channels)×\(x.height)×\(x.width)"))
        }
        return .success(parameter.array)
    }
}
