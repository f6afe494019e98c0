import Foundation
import _OpenCoreMLImageIO

/// Something to find in an image, performed by a ``VNImageRequestHandler``.
///
/// After `perform`, ``results`` holds what the request found (nil if it failed) and the
/// ``completionHandler`` has been called with the request and the error, if any. As with Vision, a
/// request is not synchronized: do not change it or perform it twice at the same time.
public class VNRequest: @unchecked Sendable {
    /// Called once per perform, on the thread that performs the request, after ``results`` is set.
    public let completionHandler: VNRequestCompletionHandler?
    /// What the last perform found; nil before the first perform and after a failure. For a
    /// ``VNCoreMLRequest`` on a detector these are ``VNRecognizedObjectObservation``s, on a
    /// classifier ``VNClassificationObservation``s, else ``VNCoreMLFeatureValueObservation``s (or
    /// ``VNPixelBufferObservation``s for image outputs).
    public internal(set) var results: [VNObservation]?
    /// Vision's hint to run with lower priority; kept, but has no effect here.
    public var preferBackgroundProcessing = false
    /// Vision's switch to run on the CPU only; kept, but everything runs on the CPU here.
    public var usesCPUOnly = false

    /// A request with an optional completion handler. A plain `VNRequest` finds nothing: performing
    /// it fails with ``VNErrorCode/notImplemented``; use a subclass such as ``VNCoreMLRequest``.
    public init(completionHandler: VNRequestCompletionHandler? = nil) {
        self.completionHandler = completionHandler
    }

    /// The observations the request finds in `image`, an upright picture; subclasses override it.
    func observations(in image: RGBAImage) throws -> [VNObservation] {
        throw VNError(.notImplemented, "\(type(of: self)) does not find anything: use a subclass such as VNCoreMLRequest")
    }

    /// Performs the request on `image` (or reports `loadError`): sets ``results``, calls the
    /// completion handler, and returns the error, if any.
    func perform(on image: Result<RGBAImage, VNError>) -> VNError? {
        var failure: VNError?
        do {
            results = try observations(in: image.get())
        } catch let error as VNError {
            results = nil
            failure = error
        } catch {
            results = nil
            failure = VNError(.internalError, "\(type(of: self)): \(error)", underlyingError: error)
        }
        completionHandler?(self, failure)
        return failure
    }
}

/// A request that looks at an image, or at a region of it.
public class VNImageBasedRequest: VNRequest, @unchecked Sendable {
    /// The part of the (upright) image the request looks at, in normalized coordinates: 0…1 on each
    /// axis, origin at the bottom left, as everywhere in Vision. The default is the whole image,
    /// (0, 0, 1, 1). The region is cut out, rounded outward to whole pixels, before cropping and
    /// scaling; one that is not inside the unit square fails with ``VNErrorCode/outOfBoundsError``.
    public var regionOfInterest = CGRect(x: 0, y: 0, width: 1, height: 1)

    /// Whether ``regionOfInterest`` is the whole image.
    var coversWholeImage: Bool { regionOfInterest == CGRect(x: 0, y: 0, width: 1, height: 1) }

    /// Throws unless ``regionOfInterest`` is a non-empty rectangle inside the unit square.
    func checkRegionOfInterest() throws {
        let r = regionOfInterest.standardized
        let inside = r.minX >= 0 && r.minY >= 0 && r.maxX <= 1 && r.maxY <= 1 && r.width > 0 && r.height > 0
        guard inside, r.minX.isFinite, r.maxX.isFinite, r.minY.isFinite, r.maxY.isFinite else {
            throw VNError(.outOfBoundsError, "\(type(of: self)): regionOfInterest \(regionOfInterest) is not a non-empty rectangle inside (0, 0, 1, 1)")
        }
    }
}
