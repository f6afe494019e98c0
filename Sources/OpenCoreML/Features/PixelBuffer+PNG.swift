import Foundation

extension PixelBuffer {
    /// The picture as a PNG file's bytes (an OpenCoreML addition, e.g. to look at what a model was
    /// fed, or to save a chart): 8-bit RGB in the buffer's colours, gray formats as gray values in
    /// each channel; alpha is dropped. libpng writes it on Linux, ImageIO on Apple platforms.
    public func pngData() throws -> Data {
        do {
            return try rgbaImage().pngData()
        } catch {
            throw MLModelError(.io, "could not encode a \(width)×\(height) picture as PNG: \(error)")
        }
    }
}
