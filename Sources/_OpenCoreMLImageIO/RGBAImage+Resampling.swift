/// A rectangle in pixel coordinates of a picture (x to the right, y down), possibly fractional.
package struct PixelRect: Sendable, Equatable {
    package var x: Double, y: Double, width: Double, height: Double
    package init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
}

extension RGBAImage {
    /// The picture scaled to `width × height` (see `resampled(from:width:height:)`).
    package func resized(width: Int, height: Int) -> RGBAImage {
        resampled(from: PixelRect(x: 0, y: 0, width: Double(self.width), height: Double(self.height)), width: width, height: height)
    }

    /// The region `source` scaled to `width × height` with a separable triangle (bilinear) filter
    /// that widens with the reduction factor, so shrinking averages every source pixel under the
    /// output pixel (area-like, no aliasing) and enlarging interpolates bilinearly between pixel
    /// centres. Output pixel `i` is centred at `source.x + (i + 0.5) · source.width / width`; taps
    /// outside the picture are dropped and the weights renormalized (edges are not darkened).
    /// This is the filter of Pillow's `resize(…, BILINEAR, box=…)`, which the tests use as the
    /// reference. Core ML and Vision do not document theirs (they use vImage/Core Image).
    /// Channels are filtered independently: composite transparent pictures first.
    package func resampled(from source: PixelRect, width: Int, height: Int) -> RGBAImage {
        precondition(width > 0 && height > 0 && source.width > 0 && source.height > 0, "resampling to \(width)×\(height) from \(source)")
        let columns = Self.filterTaps(outputCount: width, start: source.x, length: source.width, inputCount: self.width)
        let rows = Self.filterTaps(outputCount: height, start: source.y, length: source.height, inputCount: self.height)
        // Horizontal pass into floats (only the rows the vertical pass reads), then vertical.
        let firstRow = rows.map(\.first).min()!, lastRow = rows.map { $0.first + $0.weights.count }.max()!
        var horizontal = [Float](repeating: 0, count: (lastRow - firstRow) * width * 4)
        pixels.withUnsafeBufferPointer { p in
            horizontal.withUnsafeMutableBufferPointer { h in
                for y in firstRow..<lastRow {
                    let sourceRow = y * self.width * 4, targetRow = (y - firstRow) * width * 4
                    for (x, tap) in columns.enumerated() {
                        var sum = SIMD4<Float>.zero
                        for (k, weight) in tap.weights.enumerated() {
                            let i = sourceRow + (tap.first + k) * 4
                            sum += weight * SIMD4(Float(p[i]), Float(p[i + 1]), Float(p[i + 2]), Float(p[i + 3]))
                        }
                        h[targetRow + x * 4] = sum.x; h[targetRow + x * 4 + 1] = sum.y
                        h[targetRow + x * 4 + 2] = sum.z; h[targetRow + x * 4 + 3] = sum.w
                    }
                }
            }
        }
        var result = [UInt8](repeating: 0, count: width * height * 4)
        horizontal.withUnsafeBufferPointer { h in
            result.withUnsafeMutableBufferPointer { r in
                for (y, tap) in rows.enumerated() {
                    for i in 0..<(width * 4) {
                        var sum: Float = 0
                        for (k, weight) in tap.weights.enumerated() { sum += weight * h[(tap.first - firstRow + k) * width * 4 + i] }
                        r[y * width * 4 + i] = UInt8(min(max(sum.rounded(), 0), 255))
                    }
                }
            }
        }
        return RGBAImage(width: width, height: height, pixels: result)
    }

    /// For each output position along one axis: the first input index and the normalized weights.
    static func filterTaps(outputCount: Int, start: Double, length: Double, inputCount: Int) -> [(first: Int, weights: [Float])] {
        let scale = length / Double(outputCount)
        let filterScale = max(scale, 1)
        let support = filterScale  // the triangle's radius is 1 output pixel, at least 1 input pixel
        return (0..<outputCount).map { i in
            let center = start + (Double(i) + 0.5) * scale
            var low = Int((center - support + 0.5).rounded(.down)), high = Int((center + support + 0.5).rounded(.down))
            low = min(max(low, 0), inputCount - 1)
            high = min(max(high, low + 1), inputCount)
            var weights = (low..<high).map { j in max(0, 1 - abs((Double(j) + 0.5 - center) / filterScale)) }
            let total = weights.reduce(0, +)
            if total > 0 { weights = weights.map { $0 / total } } else { weights = [1] + [Double](repeating: 0, count: weights.count - 1) }
            return (low, weights.map(Float.init))
        }
    }
}
