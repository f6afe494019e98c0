/// Reading an image plane at real-valued positions: the sampler under the ML Program's
/// `crop_resize`, `resample` and `affine` (the separable resizes, `resize_bilinear` and friends,
/// read whole rows on their own grid: ``MILOperations/linearTaps(_:_:_:)``).
///
/// A position is (row, column) in pixels, 0 the first pixel's centre. Bilinear sampling weighs the
/// four pixels around it; nearest sampling reads the one its coordinates round to (halves to
/// even). ``Padding`` says what lies outside the plane.
package enum PlaneSampler {
    /// What a position outside the plane reads.
    package enum Padding: Equatable, Sendable {
        /// `value` for every pixel outside (each of the four a bilinear sample reads).
        case constant(Float)
        /// The position clamped to the plane (the edge pixels repeated).
        case border
        /// The position reflected at the first and last pixels' centres (`|1 2 3|` →
        /// `… 2 3 2 1 2 3 2 1 …`), then clamped.
        case reflection
        /// The position reflected at the plane's edges, half a pixel beyond the first and last
        /// centres (`|1 2 3|` → `… 2 1 1 2 3 3 2 …`), then clamped.
        case symmetric

        /// `position` along an axis of `size` pixels, folded into the plane (or as it is, for
        /// `constant`).
        @inline(__always)
        func fold(_ position: Double, _ size: Int) -> Double {
            let last = Double(size - 1)
            switch self {
            case .constant: return position
            case .border: return min(max(position, 0), last)
            case .reflection: return min(max(Self.reflect(position, low: 0, high: last), 0), last)
            case .symmetric: return min(max(Self.reflect(position, low: -0.5, high: last + 0.5), 0), last)
            }
        }

        /// `position` mirrored into [low, high] at both ends, any number of times.
        private static func reflect(_ position: Double, low: Double, high: Double) -> Double {
            let span = high - low
            guard span > 0, position.isFinite else { return position.isFinite ? low : position }
            let offset = (position - low).magnitude.truncatingRemainder(dividingBy: 2 * span)
            return low + (offset > span ? 2 * span - offset : offset)
        }
    }

    /// The pixel of `plane` (`height × width`) at (`row`, `column`), or the constant padding
    /// outside it.
    @inline(__always)
    private static func pixel(_ plane: UnsafePointer<Float>, _ height: Int, _ width: Int, _ row: Int, _ column: Int, _ outside: Float) -> Float {
        row >= 0 && row < height && column >= 0 && column < width ? plane[row * width + column] : outside
    }

    /// `plane` (`height × width`, neither 0) interpolated at (`y`, `x`).
    package static func bilinear(_ plane: UnsafePointer<Float>, height: Int, width: Int, y: Double, x: Double, padding: Padding) -> Float {
        let (y, x) = (padding.fold(y, height), padding.fold(x, width))
        guard y.isFinite, x.isFinite, y.magnitude < 1e9, x.magnitude < 1e9 else {
            if case .constant(let value) = padding { return value }
            return .nan
        }
        var outside: Float = 0
        if case .constant(let value) = padding { outside = value }
        let (top, left) = (y.rounded(.down), x.rounded(.down))
        let (fy, fx) = (Float(y - top), Float(x - left))
        let (r, c) = (Int(top), Int(left))
        let a = pixel(plane, height, width, r, c, outside), b = fx == 0 ? a : pixel(plane, height, width, r, c + 1, outside)
        let upper = fx == 0 ? a : a * (1 - fx) + b * fx
        if fy == 0 { return upper }
        let d = pixel(plane, height, width, r + 1, c, outside), e = fx == 0 ? d : pixel(plane, height, width, r + 1, c + 1, outside)
        let lower = fx == 0 ? d : d * (1 - fx) + e * fx
        return upper * (1 - fy) + lower * fy
    }

    /// `plane` (`height × width`, neither 0) at the pixel nearest (`y`, `x`).
    package static func nearest(_ plane: UnsafePointer<Float>, height: Int, width: Int, y: Double, x: Double, padding: Padding) -> Float {
        let (y, x) = (padding.fold(y, height), padding.fold(x, width))
        var outside: Float = 0
        if case .constant(let value) = padding { outside = value }
        guard y.isFinite, x.isFinite, y.magnitude < 1e9, x.magnitude < 1e9 else { return outside }
        return pixel(plane, height, width, Int(y.rounded(.toNearestOrEven)), Int(x.rounded(.toNearestOrEven)), outside)
    }

    /// Where `resample` and `affine` read for a coordinate `c` along an axis of `size` pixels,
    /// by `coordinates_mode`: `unnormalized` is a pixel position; the normalized modes map [-1, 1]
    /// (or [0, 1]) onto the first to the last pixel's centre with `alignCorners`, onto the
    /// plane's outer edges without.
    package static func unnormalize(_ c: Double, size: Int, mode: CoordinateMode, alignCorners: Bool) -> Double {
        let c = mode == .zeroToOne ? 2 * c - 1 : c
        switch mode {
        case .unnormalized: return c
        case .minusOneToOne, .zeroToOne:
            return alignCorners ? (c + 1) / 2 * Double(size - 1) : ((c + 1) * Double(size) - 1) / 2
        }
    }

    /// `coordinates_mode` of `resample` and `affine`.
    package enum CoordinateMode: String, Sendable {
        case unnormalized, minusOneToOne = "normalized_minus_one_to_one", zeroToOne = "normalized_zero_to_one"
    }

    /// `count` positions across a box from `start` to `end` (pixel positions along one axis; `end`
    /// may be before `start`, reading the box mirrored), by `crop_resize`'s `sampling_mode`: the
    /// box takes the place of the whole axis (0 to size − 1) in ``MILOperations/samplingModes``.
    ///
    /// - `STRICT_ALIGN_CORNERS`, `ALIGN_CORNERS`: the ends and evenly between; one sample at the
    ///   start (strict) or the middle;
    /// - `UNALIGN_CORNERS`, `DEFAULT`: the box extended by one pixel (as the whole axis is `size`
    ///   pixels wide), half-pixel centres or from the start; `OFFSET_CORNERS`: `count` cells of the
    ///   box, each sampled in its middle.
    package static func boxGrid(start: Double, end: Double, count: Int, mode: String) -> [Double]? {
        let extent = end - start, n = Double(count)
        let position: (Double) -> Double
        switch mode {
        case "STRICT_ALIGN_CORNERS": position = { i in count > 1 ? start + i * extent / (n - 1) : start }
        case "ALIGN_CORNERS": position = { i in count > 1 ? start + i * extent / (n - 1) : start + extent / 2 }
        case "UNALIGN_CORNERS": position = { i in start + (i + 0.5) * (extent + 1) / n - 0.5 }
        case "DEFAULT": position = { i in start + i * (extent + 1) / n }
        case "OFFSET_CORNERS": position = { i in start + (i + 0.5) * extent / n }
        default: return nil
        }
        return (0..<count).map { position(Double($0)) }
    }
}
