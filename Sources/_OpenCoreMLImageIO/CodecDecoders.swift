#if os(Linux) && !canImport(ImageIO)
import Foundation
import _OpenCoreMLCodecs

extension RGBAImage {
    /// Decodes JPEG or PNG bytes with the system libjpeg-turbo or libpng, through C functions
    /// that keep the libraries' error jumps inside C.
    static func decodeWithCodecs(_ data: Data, format: ImageFormat) throws -> RGBAImage {
        var image = ocm_decoded_image()
        let status = data.withUnsafeBytes { bytes in
            let start = bytes.bindMemory(to: UInt8.self).baseAddress
            switch format {
            case .jpeg: return ocm_jpeg_decode(start, bytes.count, &image)
            case .png: return ocm_png_decode(start, bytes.count, &image)
            }
        }
        defer { ocm_image_free(&image) }
        guard status == 0, let pixels = image.pixels else {
            let message = withUnsafeBytes(of: image.message) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
            throw DecodingFailure(message)
        }
        let width = Int(image.width), height = Int(image.height)
        return RGBAImage(width: width, height: height, pixels: Array(UnsafeBufferPointer(start: pixels, count: width * height * 4)))
    }
}
#endif
