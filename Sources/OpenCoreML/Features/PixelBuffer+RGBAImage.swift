import _OpenCoreMLImageIO

extension PixelBuffer {
    /// The buffer's pixels as an opaque 8-bit RGBA picture, for the package's modules that crop,
    /// turn and scale pictures (such as OpenVision's request handler). Grayscale formats repeat the
    /// gray value in red, green and blue; half-float gray is rounded and clamped to 0…255; alpha is
    /// ignored, as a prediction ignores it.
    package func rgbaImage() -> RGBAImage {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let colour = rgb(x: x, y: y)
                let i = (y * width + x) * 4
                pixels[i] = clampedByte(colour.x)
                pixels[i + 1] = clampedByte(colour.y)
                pixels[i + 2] = clampedByte(colour.z)
            }
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }
}
