import Foundation

/// Finds the EXIF orientation tag in a JPEG's APP1 "Exif" segment or a PNG's `eXIf` chunk.
/// Every read is bounds-checked: a damaged or missing EXIF block means "upright".
enum ExifReader {
    static func orientation(in data: Data, format: ImageFormat) -> ExifOrientation {
        let bytes = [UInt8](data)
        let tiff: ArraySlice<UInt8>?
        switch format {
        case .jpeg: tiff = jpegExif(bytes)
        case .png: tiff = pngExif(bytes)
        }
        guard let tiff, let raw = orientationTag(inTIFF: tiff), let orientation = ExifOrientation(rawValue: raw) else { return .up }
        return orientation
    }

    /// The TIFF block of the first APP1 segment that starts with "Exif\0\0", before the scan data.
    static func jpegExif(_ bytes: [UInt8]) -> ArraySlice<UInt8>? {
        var i = 2  // after SOI
        while i + 4 <= bytes.count {
            guard bytes[i] == 0xFF else { return nil }
            let marker = bytes[i + 1]
            if marker == 0xFF { i += 1; continue }  // fill byte
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { i += 2; continue }  // no length
            if marker == 0xDA || marker == 0xD9 { return nil }  // scan data or end: no EXIF before it
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            guard length >= 2, i + 2 + length <= bytes.count else { return nil }
            let body = (i + 4)..<(i + 2 + length)
            if marker == 0xE1, bytes[body].starts(with: Array("Exif\0\0".utf8)) {
                return bytes[(body.lowerBound + 6)..<body.upperBound]
            }
            i += 2 + length
        }
        return nil
    }

    /// The contents of the first `eXIf` chunk.
    static func pngExif(_ bytes: [UInt8]) -> ArraySlice<UInt8>? {
        var i = 8  // after the signature
        while i + 8 <= bytes.count {
            let length = Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            let type = bytes[(i + 4)..<(i + 8)]
            guard length >= 0, i + 12 + length <= bytes.count else { return nil }
            if type.elementsEqual(Array("eXIf".utf8)) { return bytes[(i + 8)..<(i + 8 + length)] }
            if type.elementsEqual(Array("IEND".utf8)) { return nil }
            i += 12 + length
        }
        return nil
    }

    /// Tag 0x0112 (a SHORT) of IFD0 in a TIFF block (either byte order).
    static func orientationTag(inTIFF tiff: ArraySlice<UInt8>) -> UInt16? {
        let t = Array(tiff)
        guard t.count >= 8 else { return nil }
        let little: Bool
        switch (t[0], t[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= t.count else { return nil }
            return little ? Int(t[at]) | Int(t[at + 1]) << 8 : Int(t[at]) << 8 | Int(t[at + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard let a = u16(at), let b = u16(at + 2) else { return nil }
            return little ? a | b << 16 : a << 16 | b
        }
        guard u16(2) == 42, let ifd = u32(4), let entries = u16(ifd) else { return nil }
        for entry in 0..<entries {
            let at = ifd + 2 + entry * 12
            guard let tag = u16(at), let type = u16(at + 2) else { return nil }
            if tag == 0x0112 {
                guard type == 3, let value = u16(at + 8) else { return nil }
                return UInt16(value)
            }
        }
        return nil
    }
}
