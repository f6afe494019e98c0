#if !canImport(CoreImage)
import Foundation
import _OpenCoreMLImageIO

/// Options of the `CIImage` stand-in's initializers.
public struct CIImageOption: Hashable, RawRepresentable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    /// `true` to turn a decoded file upright by its EXIF orientation tag; by default the pixels are
    /// kept as stored, as Core Image does.
    public static let applyOrientationProperty = CIImageOption(rawValue: "kCIImageApplyOrientationProperty")
}

/// **A stand-in** for Core Image's `CIImage`, where Core Image does not exist: a picture held as
/// decoded 8-bit RGBA pixels, so that code handing a `CIImage` to `VNImageRequestHandler(ciImage:…)`
/// compiles and runs. It has no filters and no lazy rendering: it decodes (or copies) the pixels
/// when it is made.
public final class CIImage: Sendable {
    /// The pixels, top row first.
    let picture: RGBAImage

    init(picture: RGBAImage) {
        self.picture = picture
    }

    /// The JPEG or PNG file at `url`, pixels as stored; nil if it cannot be read or decoded.
    public convenience init?(contentsOf url: URL) {
        self.init(contentsOf: url, options: nil)
    }

    /// The JPEG or PNG file at `url`; with `.applyOrientationProperty: true` turned upright by its
    /// EXIF orientation. Nil if it cannot be read or decoded.
    public convenience init?(contentsOf url: URL, options: [CIImageOption: Any]?) {
        guard let data = try? Data(contentsOf: url) else { return nil }
        self.init(data: data, options: options)
    }

    /// JPEG or PNG bytes, pixels as stored; nil if they cannot be decoded.
    public convenience init?(data: Data) {
        self.init(data: data, options: nil)
    }

    /// JPEG or PNG bytes; with `.applyOrientationProperty: true` turned upright by their EXIF
    /// orientation. Nil if they cannot be decoded.
    public convenience init?(data: Data, options: [CIImageOption: Any]?) {
        let upright = (options?[.applyOrientationProperty] as? Bool) ?? false
        guard let picture = try? RGBAImage(data: data, name: "CIImage data", appliesOrientation: upright) else { return nil }
        self.init(picture: picture)
    }

    /// A copy of the pixel buffer's pixels (``PixelBuffer`` is `CVPixelBuffer` where Core Video does
    /// not exist).
    public convenience init(cvPixelBuffer pixelBuffer: PixelBuffer) {
        self.init(picture: pixelBuffer.rgbaImage())
    }

    /// A copy of the pixel buffer's pixels; the options are ignored.
    public convenience init(cvPixelBuffer pixelBuffer: PixelBuffer, options: [CIImageOption: Any]?) {
        self.init(cvPixelBuffer: pixelBuffer)
    }

    /// The picture's rectangle: origin (0, 0), its width and height in pixels.
    public var extent: CGRect { CGRect(x: 0, y: 0, width: picture.width, height: picture.height) }

    /// The picture turned upright for pixels stored with `orientation`.
    public func oriented(_ orientation: CGImagePropertyOrientation) -> CIImage {
        CIImage(picture: picture.oriented(orientation.exifOrientation))
    }
}
#endif
