/// EXIF's orientation tag (0x0112): how the stored pixels must be turned to show the picture
/// upright. The raw values are EXIF's (and `CGImagePropertyOrientation`'s).
package enum ExifOrientation: UInt16, Sendable, CaseIterable {
    /// Stored upright.
    case up = 1
    /// Mirrored left to right.
    case upMirrored = 2
    /// Upside down.
    case down = 3
    /// Mirrored top to bottom.
    case downMirrored = 4
    /// Stored row 0 is the left column, column 0 the top row (a transpose).
    case leftMirrored = 5
    /// Stored row 0 is the right column, column 0 the top row: turn 90° clockwise to show.
    case right = 6
    /// Stored row 0 is the right column, column 0 the bottom row (a transverse).
    case rightMirrored = 7
    /// Stored row 0 is the left column, column 0 the bottom row: turn 90° counterclockwise to show.
    case left = 8

    /// Whether showing the picture swaps its width and height.
    package var swapsDimensions: Bool { rawValue >= 5 }
}

extension RGBAImage {
    /// The picture as it is meant to be seen, for pixels stored with `orientation`.
    package func oriented(_ orientation: ExifOrientation) -> RGBAImage {
        guard orientation != .up else { return self }
        let (w, h) = (width, height)
        let outWidth = orientation.swapsDimensions ? h : w
        let outHeight = orientation.swapsDimensions ? w : h
        var result = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { source in
            result.withUnsafeMutableBufferPointer { target in
                for y in 0..<outHeight {
                    for x in 0..<outWidth {
                        // The stored pixel that is shown at (x, y).
                        let (sx, sy): (Int, Int)
                        switch orientation {
                        case .up: (sx, sy) = (x, y)
                        case .upMirrored: (sx, sy) = (w - 1 - x, y)
                        case .down: (sx, sy) = (w - 1 - x, h - 1 - y)
                        case .downMirrored: (sx, sy) = (x, h - 1 - y)
                        case .leftMirrored: (sx, sy) = (y, x)
                        case .right: (sx, sy) = (y, h - 1 - x)
                        case .rightMirrored: (sx, sy) = (w - 1 - y, h - 1 - x)
                        case .left: (sx, sy) = (w - 1 - y, x)
                        }
                        let from = (sy * w + sx) * 4, to = (y * outWidth + x) * 4
                        target[to] = source[from]; target[to + 1] = source[from + 1]
                        target[to + 2] = source[from + 2]; target[to + 3] = source[from + 3]
                    }
                }
            }
        }
        return RGBAImage(width: outWidth, height: outHeight, pixels: result)
    }
}
