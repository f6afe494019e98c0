import Foundation

extension RGBAImage {
    /// Decodes the JPEG or PNG file at `url`. With `appliesOrientation` (the default) the pixels
    /// are turned upright according to the file's EXIF orientation tag.
    package init(contentsOf url: URL, appliesOrientation: Bool = true) throws {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            let exists = FileManager.default.fileExists(atPath: url.path)
            throw ImageError(file: url.path, reason: exists ? "cannot be read" : "no such file")
        }
        try self.init(data: data, name: url.path, appliesOrientation: appliesOrientation)
    }

    /// Decodes JPEG or PNG bytes; `name` is what errors call them (such as the file's path).
    package init(data: Data, name: String, appliesOrientation: Bool = true) throws {
        guard let format = ImageFormat(sniffing: data) else {
            throw ImageError(file: name, reason: data.isEmpty ? "the file is empty" : "not a JPEG or PNG image")
        }
        let decoded: RGBAImage
        do {
            decoded = try Self.decode(data, format: format)
        } catch let reason as DecodingFailure {
            throw ImageError(file: name, reason: "corrupt or truncated \(format.rawValue) data (\(reason.message))")
        }
        self = appliesOrientation ? decoded.oriented(ExifReader.orientation(in: data, format: format)) : decoded
    }

    /// The EXIF orientation recorded in JPEG or PNG bytes (`.up` when there is none).
    package static func orientation(of data: Data) -> ExifOrientation {
        guard let format = ImageFormat(sniffing: data) else { return .up }
        return ExifReader.orientation(in: data, format: format)
    }

    private static func decode(_ data: Data, format: ImageFormat) throws -> RGBAImage {
        #if canImport(ImageIO)
        return try decodeWithImageIO(data)
        #elseif os(Linux)
        return try decodeWithCodecs(data, format: format)
        #else
        throw DecodingFailure("no image decoder on this platform")
        #endif
    }
}

/// A decoder's own message, wrapped into an `ImageError` with the file's name.
struct DecodingFailure: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
