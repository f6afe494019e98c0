#if !canImport(CoreVideo)
import Foundation

// Core Video's names for pixel buffers, where Core Video does not exist, so that Core ML code
// that makes and fills `CVPixelBuffer`s compiles unchanged.

/// Core Video's pixel buffer type: ``PixelBuffer`` where Core Video does not exist.
public typealias CVPixelBuffer = PixelBuffer
/// A four-character code, such as a pixel format.
public typealias OSType = UInt32
/// The status code the Core Video functions return.
public typealias CVReturn = Int32

/// The Core Video function succeeded.
public let kCVReturnSuccess: CVReturn = 0
/// An argument was out of range, such as a width or height below 1.
public let kCVReturnInvalidArgument: CVReturn = -6661
/// The pixel format is not one that ``PixelBuffer`` handles.
public let kCVReturnInvalidPixelFormat: CVReturn = -6680

/// Four bytes per pixel: blue, green, red, alpha. What colour image inputs use.
public let kCVPixelFormatType_32BGRA: OSType = PixelFormat.bgra32
/// Four bytes per pixel: alpha, red, green, blue.
public let kCVPixelFormatType_32ARGB: OSType = PixelFormat.argb32
/// Four bytes per pixel: red, green, blue, alpha.
public let kCVPixelFormatType_32RGBA: OSType = PixelFormat.rgba32
/// Three bytes per pixel: red, green, blue.
public let kCVPixelFormatType_24RGB: OSType = PixelFormat.rgb24
/// One byte per pixel: 8-bit grayscale, what grayscale image inputs use.
public let kCVPixelFormatType_OneComponent8: OSType = PixelFormat.gray8
/// Two bytes per pixel: grayscale as a half-precision float.
public let kCVPixelFormatType_OneComponent16Half: OSType = PixelFormat.grayHalf

/// Options for locking a pixel buffer's memory (locking changes nothing here).
public struct CVPixelBufferLockFlags: OptionSet, Sendable {
    public let rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    /// The caller only reads the pixels.
    public static let readOnly = CVPixelBufferLockFlags(rawValue: 1)
}

/// Makes a zero-filled buffer (the allocator and attributes are ignored).
public func CVPixelBufferCreate(
    _ allocator: Any?, _ width: Int, _ height: Int, _ pixelFormatType: OSType, _ pixelBufferAttributes: Any?,
    _ pixelBufferOut: UnsafeMutablePointer<CVPixelBuffer?>
) -> CVReturn {
    guard width > 0, height > 0 else { return kCVReturnInvalidArgument }
    guard let buffer = PixelBuffer(width: width, height: height, pixelFormatType: pixelFormatType) else { return kCVReturnInvalidPixelFormat }
    pixelBufferOut.pointee = buffer
    return kCVReturnSuccess
}

/// The buffer's width in pixels.
public func CVPixelBufferGetWidth(_ pixelBuffer: CVPixelBuffer) -> Int { pixelBuffer.width }
/// The buffer's height in pixels.
public func CVPixelBufferGetHeight(_ pixelBuffer: CVPixelBuffer) -> Int { pixelBuffer.height }
/// The buffer's pixel format code, such as ``kCVPixelFormatType_32BGRA``.
public func CVPixelBufferGetPixelFormatType(_ pixelBuffer: CVPixelBuffer) -> OSType { pixelBuffer.pixelFormatType }
/// The distance in bytes from one row of pixels to the next.
public func CVPixelBufferGetBytesPerRow(_ pixelBuffer: CVPixelBuffer) -> Int { pixelBuffer.bytesPerRow }
/// The first byte of the top row of pixels.
public func CVPixelBufferGetBaseAddress(_ pixelBuffer: CVPixelBuffer) -> UnsafeMutableRawPointer? { pixelBuffer.baseAddress }
/// Locking is a no-op: the memory is always addressable.
public func CVPixelBufferLockBaseAddress(_ pixelBuffer: CVPixelBuffer, _ lockFlags: CVPixelBufferLockFlags) -> CVReturn { kCVReturnSuccess }
/// Unlocking is a no-op, as locking is.
public func CVPixelBufferUnlockBaseAddress(_ pixelBuffer: CVPixelBuffer, _ unlockFlags: CVPixelBufferLockFlags) -> CVReturn { kCVReturnSuccess }
#endif
