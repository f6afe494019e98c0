import CoreMLSpec
import Foundation
import _OpenCoreMLImageIO

extension MLFeatureValue {
    /// Keys of the options of the image-loading initializers.
    public struct ImageOption: Hashable, RawRepresentable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// An option key with the given name.
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// A `CGRect` region of interest in normalized coordinates (0…1, origin at the bottom left,
        /// as in Vision), cut out before scaling; rounded outward to whole pixels.
        public static let cropRect = ImageOption(rawValue: "cropRect")
        /// How the picture (or region) is fitted to the size: a `VNImageCropAndScaleOption` or its raw
        /// value: `.centerCrop` (0), `.scaleFit` (1) or `.scaleFill` (2, the default here).
        public static let cropAndScale = ImageOption(rawValue: "cropAndScale")
    }

    /// The JPEG or PNG image at `url` as a pixel buffer of the constraint's size and format: turned
    /// upright per its EXIF orientation, laid over black where it is transparent, then cropped and
    /// scaled per `options` (see `RGBAImage.scaled(toWidth:height:mode:)` for the geometry).
    ///
    /// ```swift
    /// let constraint = model.modelDescription.inputDescriptionsByName["image"]!.imageConstraint!
    /// let image = try MLFeatureValue(imageAt: URL(fileURLWithPath: "cat.png"), constraint: constraint,
    ///                                options: [.cropAndScale: VNImageCropAndScaleOption.centerCrop.rawValue])
    /// ```
    ///
    /// - Parameters:
    ///   - url: A JPEG or PNG file.
    ///   - constraint: The size and pixel format of the model input, from its ``MLFeatureDescription``.
    ///   - options: ``ImageOption/cropRect`` and ``ImageOption/cropAndScale``; by default the whole
    ///     picture, scaled to fill.
    /// - Throws: An ``MLModelError`` naming the file when it cannot be read or decoded, or when the
    ///   constraint's pixel format is not supported.
    public convenience init(imageAt url: URL, constraint: MLImageConstraint, options: [ImageOption: Any]? = nil) throws {
        try self.init(imageAt: url, pixelsWide: constraint.pixelsWide, pixelsHigh: constraint.pixelsHigh,
                      pixelFormatType: constraint.pixelFormatType, options: options)
    }

    /// The JPEG or PNG image at `url` as a `pixelsWide × pixelsHigh` pixel buffer in
    /// `pixelFormatType` (such as `kCVPixelFormatType_32BGRA` or `kCVPixelFormatType_OneComponent8`).
    public convenience init(
        imageAt url: URL, pixelsWide: Int, pixelsHigh: Int, pixelFormatType: UInt32, options: [ImageOption: Any]? = nil
    ) throws {
        let image: RGBAImage
        do {
            image = try RGBAImage(contentsOf: url)
        } catch let error as ImageError {
            throw MLModelError(.io, "image \(error.description)")
        }
        try self.init(pixelBuffer: PixelBuffer.fitting(image, pixelsWide: pixelsWide, pixelsHigh: pixelsHigh,
                                                       pixelFormatType: pixelFormatType, options: options ?? [:], name: url.path))
    }

    /// A decoded picture (for example an augmented one) as a pixel buffer of the constraint's size
    /// and format, cropped and scaled per `options` as `init(imageAt:constraint:options:)` does;
    /// `name` appears in error messages.
    package convenience init(image: RGBAImage, constraint: MLImageConstraint, options: [ImageOption: Any]? = nil, name: String = "picture") throws {
        try self.init(pixelBuffer: PixelBuffer.fitting(image, pixelsWide: constraint.pixelsWide, pixelsHigh: constraint.pixelsHigh,
                                                       pixelFormatType: constraint.pixelFormatType, options: options ?? [:], name: name))
    }
}

extension PixelBuffer {
    /// `image` cropped and scaled per `options` into a new buffer; `name` is for error messages.
    static func fitting(
        _ image: RGBAImage, pixelsWide: Int, pixelsHigh: Int, pixelFormatType: UInt32, options: [MLFeatureValue.ImageOption: Any], name: String
    ) throws -> PixelBuffer {
        guard pixelsWide > 0, pixelsHigh > 0 else {
            throw MLModelError(.featureType, "image \(name): size \(pixelsWide)×\(pixelsHigh) is not positive")
        }
        guard let buffer = PixelBuffer(width: pixelsWide, height: pixelsHigh, pixelFormatType: pixelFormatType) else {
            throw MLModelError(.featureType, "image \(name): pixel format \(PixelFormat.name(pixelFormatType)) is not supported")
        }
        var picture = image
        if let region = options[.cropRect] {
            picture = try crop(picture, to: region, name: name)
        }
        let mode = try cropAndScale(options[.cropAndScale], name: name)
        buffer.store(picture.compositedOverBlack().scaled(toWidth: pixelsWide, height: pixelsHigh, mode: mode))
        return buffer
    }

    private static func crop(_ image: RGBAImage, to region: Any, name: String) throws -> RGBAImage {
        guard let rect = region as? CGRect else {
            throw MLModelError(.featureType, "image \(name): the cropRect option must be a CGRect, not \(type(of: region))")
        }
        let w = Double(image.width), h = Double(image.height)
        // Normalized coordinates outside 0…1 (or NaN) are clamped, so every product below is a pixel index.
        func unit(_ value: CGFloat) -> Double { value.isNaN ? 0 : min(max(Double(value), 0), 1) }
        let left = Int((unit(rect.minX) * w).rounded(.down)), right = Int((unit(rect.maxX) * w).rounded(.up))
        let top = Int(((1 - unit(rect.maxY)) * h).rounded(.down)), bottom = Int(((1 - unit(rect.minY)) * h).rounded(.up))
        guard right > left, bottom > top else {
            throw MLModelError(.featureType, "image \(name): cropRect \(rect) (normalized coordinates) holds no pixel of the \(image.width)×\(image.height) image")
        }
        return image.cropped(x: left, y: top, width: right - left, height: bottom - top)
    }

    private static func cropAndScale(_ value: Any?, name: String) throws -> CropAndScale {
        guard let value else { return .scaleFill }
        let raw: UInt?
        switch value {
        #if !canImport(Vision)
        case let option as VNImageCropAndScaleOption: raw = option.rawValue
        #endif
        case let number as UInt: raw = number
        case let number as Int: raw = UInt(exactly: number)
        case let number as NSNumber: raw = number.uintValue
        default: raw = nil
        }
        switch raw {
        case 0: return .centerCrop
        case 1: return .scaleFit
        case 2: return .scaleFill
        default:
            throw MLModelError(.featureType, "image \(name): cropAndScale \(value) is not supported (centerCrop 0, scaleFit 1 or scaleFill 2)")
        }
    }

    /// Writes an opaque picture of the buffer's size in the buffer's format.
    func store(_ image: RGBAImage) {
        precondition(image.width == width && image.height == height)
        image.pixels.withUnsafeBufferPointer { p in
            for y in 0..<height {
                let row = (baseAddress + y * bytesPerRow).assumingMemoryBound(to: UInt8.self)
                for x in 0..<width {
                    let i = (y * width + x) * 4
                    let (r, g, b) = (p[i], p[i + 1], p[i + 2])
                    switch pixelFormatType {
                    case PixelFormat.bgra32: (row[4 * x], row[4 * x + 1], row[4 * x + 2], row[4 * x + 3]) = (b, g, r, 255)
                    case PixelFormat.argb32: (row[4 * x], row[4 * x + 1], row[4 * x + 2], row[4 * x + 3]) = (255, r, g, b)
                    case PixelFormat.rgba32: (row[4 * x], row[4 * x + 1], row[4 * x + 2], row[4 * x + 3]) = (r, g, b, 255)
                    case PixelFormat.rgb24: (row[3 * x], row[3 * x + 1], row[3 * x + 2]) = (r, g, b)
                    case PixelFormat.gray8: row[x] = Self.luma(r, g, b)
                    default:  // half-float gray
                        let bits = HalfPrecision.bits(from: Float(Self.luma(r, g, b)))
                        row[2 * x] = UInt8(truncatingIfNeeded: bits); row[2 * x + 1] = UInt8(truncatingIfNeeded: bits >> 8)
                    }
                }
            }
        }
    }

    /// ITU-R BT.601 luma of an 8-bit colour, rounded (as Pillow's conversion to "L").
    static func luma(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt8 {
        let weighted: Int = 299 * Int(r) + 587 * Int(g) + 114 * Int(b)
        return UInt8((weighted + 500) / 1000)
    }
}

/// A JPEG or PNG file's picture at its own size, upright (its EXIF orientation applied): the C
/// interface's `ocm_image_decode`, for tables that keep pictures encoded and decode them on demand.
package enum ImageDecoding {
    /// `data` decoded: its width, height and RGBA bytes (row-major, 4 per pixel); `name` appears in errors.
    package static func rgba(_ data: Data, name: String) throws -> (width: Int, height: Int, pixels: [UInt8]) {
        do {
            let image = try RGBAImage(data: data, name: name)
            return (image.width, image.height, image.pixels)
        } catch let error as ImageError {
            throw MLModelError(.io, "image \(error.description)")
        }
    }
}
