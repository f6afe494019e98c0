#if !canImport(CoreVideo)
import Foundation

// Core Video's names for pixel buffers, where Core Video does not exist, so that Core ML code
// that makes and fills `CVPixelBuffer`s compiles unchanged.

public typealias CVPixelBuffer = PixelBuffer
public typealias OSType = UInt32
public typealias CVReturn = Int32

public let kCVReturnSuccess: CVReturn = 0
public let kCVReturnInvalidArgument: CVReturn = -6661
public let kCVReturnInvalidPixelFormat: CVReturn = -6680

public let kCVPixelFormatType_32BGRA: OSType = PixelFormat.bgra32
public let kCVPixelFormatType_32ARGB: OSType = PixelFormat.argb32
public let kCVPixelFormatType_32RGBA: OSType = PixelFormat.rgba32
public let kCVPixelFormatType_24RGB: OSType = PixelFormat.rgb24
public let kCVPixelFormatType_OneComponent8: OSType = PixelFormat.gray8
public let kCVPixelFormatType_OneComponent16Half: OSType = PixelFormat.grayHalf

public struct CVPixelBufferLockFlags: OptionSet, Sendable {
    public let rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
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

public func CVPixelBufferGetWidth(_ pixelBuffer: CVPixelBuffer) -> Int { pixelBuffer.width }
public func CVPixelBufferGetHeight(_ pixelBuffer: CVPixelBuffer) -> Int { pixelBuffer.height }
public func CVPixelBufferGetPixelFormatType(_ pixelBuffer: CVPixelBuffer) -> OSType { pixelBuffer.pixelFormatType }
public func CVPixelBufferGetBytesPerRow(_ pixelBuffer: CVPixelBuffer) -> Int { pixelBuffer.bytesPerRow }
public func CVPixelBufferGetBaseAddress(_ pixelBuffer: CVPixelBuffer) -> UnsafeMutableRawPointer? { pixelBuffer.baseAddress }
/// Locking is a no-op: the memory is always addressable.
public func CVPixelBufferLockBaseAddress(_ pixelBuffer: CVPixelBuffer, _ lockFlags: CVPixelBufferLockFlags) -> CVReturn { kCVReturnSuccess }
public func CVPixelBufferUnlockBaseAddress(_ pixelBuffer: CVPixelBuffer, _ unlockFlags: CVPixelBufferLockFlags) -> CVReturn { kCVReturnSuccess }
#endif
