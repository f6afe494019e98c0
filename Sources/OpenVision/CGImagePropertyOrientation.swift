import _OpenCoreMLImageIO

#if canImport(ImageIO)
import ImageIO
#else
/// **A stand-in** for ImageIO's `CGImagePropertyOrientation`, where ImageIO does not exist: how the
/// stored pixels must be turned to show the picture upright. The raw values are EXIF's
/// orientation tag (1…8).
///
/// Request handlers turn the picture upright by it before any request looks at it.
public enum CGImagePropertyOrientation: UInt32, Sendable, CaseIterable {
    /// Stored upright (EXIF 1).
    case up = 1
    /// Mirrored left to right (EXIF 2).
    case upMirrored = 2
    /// Upside down (EXIF 3).
    case down = 3
    /// Mirrored top to bottom (EXIF 4).
    case downMirrored = 4
    /// The stored top row is the left column, mirrored (EXIF 5).
    case leftMirrored = 5
    /// The stored top row is the right column: turned 90° clockwise to show (EXIF 6), as a phone
    /// held upright stores its photos.
    case right = 6
    /// The stored top row is the right column, mirrored (EXIF 7).
    case rightMirrored = 7
    /// The stored top row is the left column: turned 90° counterclockwise to show (EXIF 8).
    case left = 8
}
#endif

extension CGImagePropertyOrientation {
    /// The same orientation for the picture code.
    var exifOrientation: ExifOrientation {
        ExifOrientation(rawValue: UInt16(truncatingIfNeeded: rawValue)) ?? .up
    }
}
