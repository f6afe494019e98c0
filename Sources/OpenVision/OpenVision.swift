// Vision's names for running Core ML image models, on every platform Swift runs on.
//
// `import OpenVision` also brings in OpenCoreML (`MLModel`, `MLFeatureValue`, `CVPixelBuffer`,
// `VNImageCropAndScaleOption`, ...), as `import Vision` brings in Core ML on Apple platforms.
@_exported import OpenCoreML
import Foundation

#if canImport(Vision)
// OpenCoreML leaves the crop-and-scale option to Vision where Vision exists; the requests here use
// Vision's own type there.
@_exported import enum Vision.VNImageCropAndScaleOption
#endif

/// A confidence: 0 (none) … 1 (full), as Vision's observations report it.
public typealias VNConfidence = Float

/// What a request calls when it has been performed: the request (whose `results` are set, or nil
/// after a failure) and the error, or nil on success.
public typealias VNRequestCompletionHandler = (VNRequest, Error?) -> Void

/// Keys of the options a request handler takes with its image.
///
/// OpenVision accepts and keeps them but reads none: camera intrinsics, a Core Image context and the
/// image's property dictionary change nothing for Core ML requests here.
public struct VNImageOption: Hashable, RawRepresentable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The image's property dictionary (as ImageIO gives it).
    public static let properties = VNImageOption(rawValue: "VNImageOptionProperties")
    /// The camera's intrinsic matrix.
    public static let cameraIntrinsics = VNImageOption(rawValue: "VNImageOptionCameraIntrinsics")
    /// The Core Image context to render with.
    public static let ciContext = VNImageOption(rawValue: "VNImageOptionCIContext")
}
