/// An 8-bit RGBA picture: `width × height` pixels, rows top to bottom, four bytes per pixel (red,
/// green, blue, alpha; alpha not premultiplied), no row padding.
package struct RGBAImage: Sendable, Equatable {
    package let width: Int
    package let height: Int
    /// `width * height * 4` bytes.
    package var pixels: [UInt8]

    package init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0 && pixels.count == width * height * 4, "RGBAImage: \(pixels.count) bytes for \(width)×\(height)")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// A picture of one colour (transparent black by default).
    package init(width: Int, height: Int, fill: SIMD4<UInt8> = .zero) {
        precondition(width > 0 && height > 0, "RGBAImage: size \(width)×\(height)")
        self.width = width
        self.height = height
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        if fill != .zero {
            for i in 0..<(width * height) {
                pixels[4 * i] = fill.x; pixels[4 * i + 1] = fill.y; pixels[4 * i + 2] = fill.z; pixels[4 * i + 3] = fill.w
            }
        }
        self.pixels = pixels
    }

    /// The pixel at column `x`, row `y` as (red, green, blue, alpha).
    package subscript(x: Int, y: Int) -> SIMD4<UInt8> {
        get {
            let i = (y * width + x) * 4
            return SIMD4(pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3])
        }
        set {
            let i = (y * width + x) * 4
            pixels[i] = newValue.x; pixels[i + 1] = newValue.y; pixels[i + 2] = newValue.z; pixels[i + 3] = newValue.w
        }
    }

    /// Every colour multiplied by its alpha, with alpha set to 255: the picture laid over black,
    /// which is what drawing it into an opaque or premultiplied pixel buffer gives.
    package func compositedOverBlack() -> RGBAImage {
        var result = self
        result.pixels.withUnsafeMutableBufferPointer { p in
            for i in stride(from: 0, to: p.count, by: 4) where p[i + 3] != 255 {
                let alpha = UInt32(p[i + 3])
                for c in 0..<3 { p[i + c] = UInt8((UInt32(p[i + c]) * alpha + 127) / 255) }
                p[i + 3] = 255
            }
        }
        return result
    }

    /// The rectangle of `width × height` pixels whose top-left pixel is (`x`, `y`); it must lie
    /// inside the picture.
    package func cropped(x: Int, y: Int, width: Int, height: Int) -> RGBAImage {
        precondition(x >= 0 && y >= 0 && width > 0 && height > 0 && x + width <= self.width && y + height <= self.height,
                     "crop \(width)×\(height) at (\(x), \(y)) is outside the \(self.width)×\(self.height) image")
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for row in 0..<height {
            let from = ((y + row) * self.width + x) * 4
            pixels.replaceSubrange((row * width * 4)..<((row + 1) * width * 4), with: self.pixels[from..<(from + width * 4)])
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }
}
