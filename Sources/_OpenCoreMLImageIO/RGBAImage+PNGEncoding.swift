import Foundation

#if canImport(ImageIO)
import CoreGraphics
import ImageIO
#elseif os(Linux)
import _OpenCoreMLCodecs
#endif

/// Why a picture could not be encoded (the encoder's message).
package struct ImageEncodingError: Error, CustomStringConvertible, Sendable, Equatable {
    package let reason: String

    package init(_ reason: String) { self.reason = reason }

    package var description: String { "cannot encode the PNG (\(reason))" }
}

extension RGBAImage {
    /// The picture as a PNG file's bytes: 8 bits per sample, RGB when every pixel is opaque and RGBA
    /// otherwise, tagged sRGB. libpng writes it on Linux, ImageIO on Apple platforms; `init(data:)`
    /// reads it back pixel for pixel.
    package func pngData() throws -> Data {
        #if canImport(ImageIO)
        return try pngDataWithImageIO()
        #elseif os(Linux)
        return try pngDataWithCodecs()
        #else
        throw ImageEncodingError("no PNG encoder on this platform")
        #endif
    }

    #if canImport(ImageIO)
    private func pngDataWithImageIO() throws -> Data {
        let opaque = stride(from: 3, to: pixels.count, by: 4).allSatisfy { pixels[$0] == 255 }
        guard let sRGB = CGColorSpace(name: CGColorSpace.sRGB),
              let provider = CGDataProvider(data: Data(pixels) as CFData),
              let picture = CGImage(
                width: width, height: height, bitsPerComponent: 8, bitsPerPixel: 32, bytesPerRow: width * 4, space: sRGB,
                bitmapInfo: CGBitmapInfo(rawValue: (opaque ? CGImageAlphaInfo.noneSkipLast : CGImageAlphaInfo.last).rawValue),
                provider: provider, decode: nil, shouldInterpolate: false, intent: .defaultIntent)
        else {
            throw ImageEncodingError("cannot make a \(width)x\(height) CGImage")
        }
        let output = NSMutableData()
        guard let destination = CGImageDestinationCreateWithData(output as CFMutableData, "public.png" as CFString, 1, nil) else {
            throw ImageEncodingError("ImageIO has no PNG encoder")
        }
        CGImageDestinationAddImage(destination, picture, nil)
        guard CGImageDestinationFinalize(destination) else { throw ImageEncodingError("ImageIO could not write it") }
        return output as Data
    }
    #elseif os(Linux)
    private func pngDataWithCodecs() throws -> Data {
        var encoded = ocm_encoded_png()
        let status = pixels.withUnsafeBufferPointer { buffer in
            ocm_png_encode_rgba(buffer.baseAddress, Int32(width), Int32(height), &encoded)
        }
        defer { ocm_encoded_png_free(&encoded) }
        guard status == 0, let bytes = encoded.data else {
            let message = withUnsafeBytes(of: encoded.message) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
            throw ImageEncodingError(message)
        }
        return Data(bytes: bytes, count: encoded.size)
    }
    #endif
}
