import CoreMLSpec
import Foundation

/// An image in memory in one of Core Video's pixel formats: OpenCoreML's stand-in for Core ML's
/// `CVPixelBuffer` (which is this type's name on platforms without Core Video).
///
/// Formats: `kCVPixelFormatType_32BGRA` (what image inputs of colour models use),
/// `kCVPixelFormatType_32ARGB`, `kCVPixelFormatType_32RGBA`, `kCVPixelFormatType_24RGB`,
/// `kCVPixelFormatType_OneComponent8` (8-bit grayscale) and `kCVPixelFormatType_OneComponent16Half`
/// (half-float grayscale). Rows are `bytesPerRow` apart, top row first.
public final class PixelBuffer: @unchecked Sendable, CustomStringConvertible {
    /// The width in pixels.
    public let width: Int
    /// The height in pixels.
    public let height: Int
    /// A Core Video pixel format code, such as `0x42475241` (`'BGRA'`).
    public let pixelFormatType: UInt32
    /// The distance in bytes from the start of one row to the start of the next.
    public let bytesPerRow: Int
    /// `bytesPerRow * height` bytes, owned by the buffer.
    public let baseAddress: UnsafeMutableRawPointer

    /// A zero-filled buffer; nil for a size below 1×1, one whose byte count overflows an `Int`, or
    /// a format not listed above.
    public init?(width: Int, height: Int, pixelFormatType: UInt32) {
        guard width > 0, height > 0, let bytes = Self.bytesPerPixel(pixelFormatType),
              let total = checkedProduct([width, height, bytes]) else { return nil }
        self.width = width
        self.height = height
        self.pixelFormatType = pixelFormatType
        bytesPerRow = width * bytes
        baseAddress = .allocate(byteCount: total, alignment: 16)
        baseAddress.initializeMemory(as: UInt8.self, repeating: 0, count: total)
    }

    deinit { baseAddress.deallocate() }

    /// The bytes one pixel takes in `format`, nil for formats OpenCoreML does not handle.
    static func bytesPerPixel(_ format: UInt32) -> Int? {
        switch format {
        case PixelFormat.bgra32, PixelFormat.argb32, PixelFormat.rgba32: return 4
        case PixelFormat.rgb24: return 3
        case PixelFormat.gray8: return 1
        case PixelFormat.grayHalf: return 2
        default: return nil
        }
    }

    /// The pixel at column `x`, row `y` as red, green, blue on 0…255 (grayscale repeated).
    func rgb(x: Int, y: Int) -> SIMD3<Float> {
        let row = baseAddress + y * bytesPerRow
        switch pixelFormatType {
        case PixelFormat.gray8:
            return SIMD3(repeating: Float(row.load(fromByteOffset: x, as: UInt8.self)))
        case PixelFormat.grayHalf:
            return SIMD3(repeating: gray(x: x, y: y))
        default:
            let bytes = Self.bytesPerPixel(pixelFormatType)!
            let p = (row + x * bytes).assumingMemoryBound(to: UInt8.self)
            switch pixelFormatType {
            case PixelFormat.bgra32: return SIMD3(Float(p[2]), Float(p[1]), Float(p[0]))
            case PixelFormat.argb32: return SIMD3(Float(p[1]), Float(p[2]), Float(p[3]))
            default: return SIMD3(Float(p[0]), Float(p[1]), Float(p[2]))  // RGBA, RGB
            }
        }
    }

    /// The pixel at column `x`, row `y` as one gray value: the stored value for grayscale formats
    /// (half floats as they are), else ITU-R BT.601 luma `0.299 R + 0.587 G + 0.114 B`.
    func gray(x: Int, y: Int) -> Float {
        let row = baseAddress + y * bytesPerRow
        switch pixelFormatType {
        case PixelFormat.gray8: return Float(row.load(fromByteOffset: x, as: UInt8.self))
        case PixelFormat.grayHalf: return HalfPrecision.float(fromBits: row.loadUnaligned(fromByteOffset: 2 * x, as: UInt16.self))
        default:
            let c = rgb(x: x, y: y)
            return 0.299 * c.x + 0.587 * c.y + 0.114 * c.z
        }
    }

    /// The size and pixel format, such as `224×224 BGRA`.
    public var description: String { "\(width)×\(height) \(PixelFormat.name(pixelFormatType))" }
}

/// Core Video's pixel format codes that `PixelBuffer` handles.
enum PixelFormat {
    static let bgra32: UInt32 = 0x4247_5241  // 'BGRA'
    static let argb32: UInt32 = 0x0000_0020
    static let rgba32: UInt32 = 0x5247_4241  // 'RGBA'
    static let rgb24: UInt32 = 0x0000_0018
    static let gray8: UInt32 = 0x4C30_3038  // 'L008'
    static let grayHalf: UInt32 = 0x4C30_3068  // 'L00h'

    static func name(_ format: UInt32) -> String {
        switch format {
        case argb32: return "ARGB"
        case rgb24: return "RGB"
        default:
            let bytes = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: format >> $0) }
            return bytes.allSatisfy({ (0x20...0x7E).contains($0) }) ? String(decoding: bytes, as: UTF8.self) : String(format, radix: 16)
        }
    }
}
