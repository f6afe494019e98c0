import CoreMLSpec

extension PixelBuffer {
    /// An image output made from the network's channel planes (values on 0…255, rounded and
    /// clamped), as Core ML gives image outputs: `32BGRA` (opaque) for RGB and BGR colour spaces,
    /// whose planes are red, green, blue or blue, green, red; `OneComponent8` for grayscale;
    /// `OneComponent16Half` for half-float grayscale, whose values are kept as they are.
    static func imageOutput(planes: UnsafePointer<Float>, count: Int, type: CoreML_Specification_ImageFeatureType,
                            name: String) throws -> PixelBuffer {
        let (width, height) = (Int(type.width), Int(type.height))
        let gray = type.colorSpace == .grayscale || type.colorSpace == .grayscaleFloat16
        let channels = gray ? 1 : 3
        guard width > 0, height > 0, count == channels * width * height else {
            throw MLModelError(.generic, "output '\(name)' is declared a \(width)×\(height) image of \(channels) channel(s), but the network computed \(count) values")
        }
        let format = type.colorSpace == .grayscaleFloat16 ? PixelFormat.grayHalf : gray ? PixelFormat.gray8 : PixelFormat.bgra32
        let buffer = PixelBuffer(width: width, height: height, pixelFormatType: format)!
        let plane = width * height
        for y in 0..<height {
            let row = buffer.baseAddress + y * buffer.bytesPerRow
            for x in 0..<width {
                let i = y * width + x
                switch format {
                case PixelFormat.grayHalf:
                    row.storeBytes(of: HalfPrecision.bits(from: planes[i]), toByteOffset: 2 * x, as: UInt16.self)
                case PixelFormat.gray8:
                    row.storeBytes(of: clampedByte(planes[i]), toByteOffset: x, as: UInt8.self)
                default:
                    // BGRA bytes: blue, green, red, alpha.
                    let (red, green, blue) = type.colorSpace == .bgr
                        ? (planes[2 * plane + i], planes[plane + i], planes[i])
                        : (planes[i], planes[plane + i], planes[2 * plane + i])
                    let pixel = row + 4 * x
                    pixel.storeBytes(of: clampedByte(blue), as: UInt8.self)
                    pixel.storeBytes(of: clampedByte(green), toByteOffset: 1, as: UInt8.self)
                    pixel.storeBytes(of: clampedByte(red), toByteOffset: 2, as: UInt8.self)
                    pixel.storeBytes(of: 255, toByteOffset: 3, as: UInt8.self)
                }
            }
        }
        return buffer
    }
}

/// A value on 0…255 as a byte: rounded, clamped, NaN as 0.
func clampedByte(_ value: Float) -> UInt8 {
    value.isNaN ? 0 : UInt8(min(max(value.rounded(), 0), 255))
}
