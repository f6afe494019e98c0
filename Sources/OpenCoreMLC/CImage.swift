import COpenCoreML
import Foundation
import OpenCoreML

// MARK: - Pictures

@_cdecl("ocm_image_decode")
public func ocmImageDecode(_ bytes: UnsafePointer<UInt8>?, _ count: Int, _ width: UnsafeMutablePointer<Int>?, _ height: UnsafeMutablePointer<Int>?,
                           _ pixels: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?,
                           _ error: UnsafeMutablePointer<OpaquePointer?>?) -> ocm_status {
    status(error) {
        guard let bytes, count > 0, let width, let height, let pixels else {
            throw CInterfaceError.argument("ocm_image_decode: bytes, width, height and pixels must not be NULL, count positive")
        }
        let decoded = try ImageDecoding.rgba(Data(bytes: bytes, count: count), name: "given as bytes")
        guard let buffer = malloc(max(decoded.pixels.count, 1))?.assumingMemoryBound(to: UInt8.self) else {
            throw CInterfaceError.argument("ocm_image_decode: \(decoded.width)×\(decoded.height) pixels do not fit in memory")
        }
        decoded.pixels.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress!, count: $0.count) }
        width.pointee = decoded.width
        height.pointee = decoded.height
        pixels.pointee = buffer
    }
}

@_cdecl("ocm_bytes_free")
public func ocmBytesFree(_ bytes: UnsafeMutablePointer<UInt8>?) {
    free(bytes)
}
