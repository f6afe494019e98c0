import Foundation

extension RGBAImage {
    /// The picture turned `degrees` counterclockwise about its centre, same size, sampled
    /// bilinearly; pixels from outside the picture are transparent black.
    package func rotated(byDegrees degrees: Double) -> RGBAImage {
        let angle = degrees * .pi / 180
        let (c, s) = (cos(angle), sin(angle))
        let cx = Double(width) / 2, cy = Double(height) / 2
        var result = RGBAImage(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                // The source point that lands on this pixel's centre (y grows downwards).
                let dx = Double(x) + 0.5 - cx, dy = Double(y) + 0.5 - cy
                let sx = c * dx - s * dy + cx - 0.5, sy = s * dx + c * dy + cy - 0.5
                result[x, y] = bilinear(x: sx, y: sy)
            }
        }
        return result
    }

    /// The colour at fractional pixel position (`x`, `y`) (pixel centres at integers), with
    /// transparent black outside.
    func bilinear(x: Double, y: Double) -> SIMD4<UInt8> {
        let x0 = Int(x.rounded(.down)), y0 = Int(y.rounded(.down))
        let fx = Float(x - Double(x0)), fy = Float(y - Double(y0))
        var sum = SIMD4<Float>.zero
        for (dy, wy) in [(0, 1 - fy), (1, fy)] where wy > 0 {
            for (dx, wx) in [(0, 1 - fx), (1, fx)] where wx > 0 {
                let px = x0 + dx, py = y0 + dy
                guard px >= 0, py >= 0, px < width, py < height else { continue }
                sum += wx * wy * SIMD4<Float>(self[px, py])
            }
        }
        return SIMD4<UInt8>((sum.rounded(.toNearestOrEven)).clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 255)))
    }

    /// Colours multiplied by 2^`stops` and clamped; alpha unchanged.
    package func exposureAdjusted(byStops stops: Float) -> RGBAImage {
        let factor = Float(pow(2, Double(stops)))
        var result = self
        for i in stride(from: 0, to: pixels.count, by: 4) {
            for c in 0..<3 { result.pixels[i + c] = UInt8(min(255, (Float(pixels[i + c]) * factor).rounded())) }
        }
        return result
    }

    /// A separable Gaussian blur of standard deviation `sigma` pixels (radius 3σ, edges clamped).
    package func blurred(sigma: Float) -> RGBAImage {
        guard sigma > 0.05 else { return self }
        let radius = Int((3 * sigma).rounded(.up))
        var kernel = (-radius...radius).map { exp(-Float($0 * $0) / (2 * sigma * sigma)) }
        let total = kernel.reduce(0, +)
        kernel = kernel.map { $0 / total }
        func pass(_ source: [Float], horizontal: Bool) -> [Float] {
            var target = [Float](repeating: 0, count: source.count)
            for y in 0..<height {
                for x in 0..<width {
                    var sum = SIMD4<Float>.zero
                    for (k, weight) in kernel.enumerated() {
                        let offset = k - radius
                        let sx = horizontal ? min(max(x + offset, 0), width - 1) : x
                        let sy = horizontal ? y : min(max(y + offset, 0), height - 1)
                        let i = (sy * width + sx) * 4
                        sum += weight * SIMD4(source[i], source[i + 1], source[i + 2], source[i + 3])
                    }
                    let o = (y * width + x) * 4
                    target[o] = sum.x; target[o + 1] = sum.y; target[o + 2] = sum.z; target[o + 3] = sum.w
                }
            }
            return target
        }
        let blurred = pass(pass(pixels.map(Float.init), horizontal: true), horizontal: false)
        return RGBAImage(width: width, height: height, pixels: blurred.map { UInt8(min(max($0.rounded(), 0), 255)) })
    }

    /// Gaussian noise of standard deviation `sigma` levels added to each colour channel (Box–Muller
    /// from `generator`), clamped; alpha unchanged.
    package func withNoise(sigma: Float, using generator: inout some RandomNumberGenerator) -> RGBAImage {
        var result = self
        for i in stride(from: 0, to: pixels.count, by: 4) {
            for c in 0..<3 {
                let u1 = Float.random(in: Float.ulpOfOne...1, using: &generator), u2 = Float.random(in: 0..<1, using: &generator)
                let gaussian = (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
                result.pixels[i + c] = UInt8(min(max((Float(pixels[i + c]) + sigma * gaussian).rounded(), 0), 255))
            }
        }
        return result
    }
}
