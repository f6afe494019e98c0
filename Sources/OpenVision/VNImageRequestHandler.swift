import Foundation
import _OpenCoreMLImageIO

/// Performs requests on one image: a JPEG or PNG file or its bytes, a pixel buffer, or a `CIImage`.
///
/// The picture is turned upright before any request sees it: by the orientation given, which
/// supersedes everything else, or else, for a file or bytes, by their EXIF orientation tag. The
/// image is read when the first `perform` needs it, so a missing or broken file is a `perform`
/// error, reported to every request's completion handler too.
///
/// ```swift
/// let handler = VNImageRequestHandler(url: URL(fileURLWithPath: "snack.jpg"), orientation: .right)
/// try handler.perform([classificationRequest])
/// ```
public final class VNImageRequestHandler: @unchecked Sendable {
    private enum Source {
        case url(URL)
        case data(Data)
        case picture(RGBAImage)
    }

    private let source: Source
    private let orientation: CGImagePropertyOrientation?
    /// The options given; kept, not read (see ``VNImageOption``).
    let options: [VNImageOption: Any]
    private let lock = NSLock()
    private var upright: RGBAImage?

    private init(source: Source, orientation: CGImagePropertyOrientation?, options: [VNImageOption: Any]) {
        self.source = source
        self.orientation = orientation
        self.options = options
    }

    /// The JPEG or PNG file at `url`, turned upright by its EXIF orientation.
    public convenience init(url imageURL: URL, options: [VNImageOption: Any] = [:]) {
        self.init(source: .url(imageURL), orientation: nil, options: options)
    }

    /// The JPEG or PNG file at `url`, whose stored pixels `orientation` turns upright (the file's own
    /// EXIF orientation is ignored).
    public convenience init(url imageURL: URL, orientation: CGImagePropertyOrientation, options: [VNImageOption: Any] = [:]) {
        self.init(source: .url(imageURL), orientation: orientation, options: options)
    }

    /// JPEG or PNG bytes, turned upright by their EXIF orientation.
    public convenience init(data imageData: Data, options: [VNImageOption: Any] = [:]) {
        self.init(source: .data(imageData), orientation: nil, options: options)
    }

    /// JPEG or PNG bytes, whose stored pixels `orientation` turns upright (their EXIF orientation is
    /// ignored).
    public convenience init(data imageData: Data, orientation: CGImagePropertyOrientation, options: [VNImageOption: Any] = [:]) {
        self.init(source: .data(imageData), orientation: orientation, options: options)
    }

    /// A pixel buffer, upright (``PixelBuffer`` is `CVPixelBuffer` where Core Video does not exist).
    /// Its pixels are copied when the handler is made.
    public convenience init(cvPixelBuffer pixelBuffer: PixelBuffer, options: [VNImageOption: Any] = [:]) {
        self.init(source: .picture(pixelBuffer.rgbaImage()), orientation: nil, options: options)
    }

    /// A pixel buffer whose pixels `orientation` turns upright. Its pixels are copied when the
    /// handler is made.
    public convenience init(cvPixelBuffer pixelBuffer: PixelBuffer, orientation: CGImagePropertyOrientation, options: [VNImageOption: Any] = [:]) {
        self.init(source: .picture(pixelBuffer.rgbaImage()), orientation: orientation, options: options)
    }

    #if !canImport(CoreImage)
    /// A `CIImage` (OpenVision's stand-in), upright.
    public convenience init(ciImage image: CIImage, options: [VNImageOption: Any] = [:]) {
        self.init(source: .picture(image.picture), orientation: nil, options: options)
    }

    /// A `CIImage` (OpenVision's stand-in) whose pixels `orientation` turns upright.
    public convenience init(ciImage image: CIImage, orientation: CGImagePropertyOrientation, options: [VNImageOption: Any] = [:]) {
        self.init(source: .picture(image.picture), orientation: orientation, options: options)
    }
    #endif

    /// Performs `requests` in order on the image and returns when all have completed or failed.
    /// Each request's ``VNRequest/results`` is set (nil if it failed) and its completion handler is
    /// called with it and its error, as in Vision.
    ///
    /// - Throws: The ``VNError`` of the first request that failed. An image that cannot be read fails
    ///   every request: ``VNErrorCode/ioError`` for a file that cannot be read,
    ///   ``VNErrorCode/invalidFormat`` for bytes that are neither JPEG nor PNG,
    ///   ``VNErrorCode/invalidImage`` for corrupt or truncated ones.
    public func perform(_ requests: [VNRequest]) throws {
        let image = uprightImage()
        var firstFailure: VNError?
        for request in requests {
            if let failure = request.perform(on: image), firstFailure == nil {
                firstFailure = failure
            }
        }
        if let firstFailure { throw firstFailure }
    }

    /// The picture turned upright, decoded once and kept.
    private func uprightImage() -> Result<RGBAImage, VNError> {
        lock.lock()
        defer { lock.unlock() }
        if let upright { return .success(upright) }
        let result = Result { try load() }.mapError { $0 as? VNError ?? VNError(.internalError, "\($0)", underlyingError: $0) }
        if case .success(let picture) = result { upright = picture }
        return result
    }

    private func load() throws -> RGBAImage {
        switch source {
        case .picture(let picture):
            return orientation.map { picture.oriented($0.exifOrientation) } ?? picture
        case .url(let url):
            let data: Data
            do {
                data = try Data(contentsOf: url)
            } catch {
                let exists = FileManager.default.fileExists(atPath: url.path)
                throw VNError(.ioError, "VNImageRequestHandler: \(url.path): \(exists ? "cannot be read" : "no such file")", underlyingError: error)
            }
            return try decode(data, name: url.path)
        case .data(let data):
            return try decode(data, name: "image data")
        }
    }

    private func decode(_ data: Data, name: String) throws -> RGBAImage {
        guard ImageFormat(sniffing: data) != nil else {
            throw VNError(.invalidFormat, "VNImageRequestHandler: \(name): \(data.isEmpty ? "empty" : "not a JPEG or PNG image")")
        }
        do {
            let stored = try RGBAImage(data: data, name: name, appliesOrientation: orientation == nil)
            return orientation.map { stored.oriented($0.exifOrientation) } ?? stored
        } catch {
            throw VNError(.invalidImage, "VNImageRequestHandler: \(error)", underlyingError: error)
        }
    }
}
