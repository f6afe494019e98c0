#if canImport(ImageIO)
import CoreGraphics
import Foundation
import ImageIO

extension RGBAImage {
    /// Decodes any format ImageIO reads (JPEG and PNG here) by drawing it into an sRGB RGBA
    /// bitmap. Orientation is applied by the caller, from the same EXIF reader as on Linux.
    static func decodeWithImageIO(_ data: Data) throws -> RGBAImage {
        guard let source = CGImageSourceCreateWithData(data as CFData, nil),
              let picture = CGImageSourceCreateImageAtIndex(source, 0, nil) else {
            throw DecodingFailure("ImageIO cannot decode it")
        }
        let width = picture.width, height = picture.height
        guard width > 0, height > 0, width * height <= 1 << 28,  // OCM_IMAGE_MAX_PIXELS of the Linux codecs
              let sRGB = CGColorSpace(name: CGColorSpace.sRGB) else {
            throw DecodingFailure("image size \(width)x\(height) is not supported")
        }
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let drawn = pixels.withUnsafeMutableBytes { buffer -> Bool in
            guard let context = CGContext(
                data: buffer.baseAddress, width: width, height: height, bitsPerComponent: 8, bytesPerRow: width * 4,
                space: sRGB, bitmapInfo: CGImageAlphaInfo.premultipliedLast.rawValue) else { return false }
            context.draw(picture, in: CGRect(x: 0, y: 0, width: width, height: height))
            return true
        }
        guard drawn else { throw DecodingFailure("cannot draw a \(width)x\(height) bitmap") }
        // CoreGraphics draws premultiplied alpha; RGBAImage holds straight alpha.
        for i in stride(from: 0, to: pixels.count, by: 4) where pixels[i + 3] != 255 && pixels[i + 3] != 0 {
            let alpha = Int(pixels[i + 3])
            for c in 0..<3 { pixels[i + c] = UInt8(min(255, (Int(pixels[i + c]) * 255 + alpha / 2) / alpha)) }
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }
}
#endif
