import Foundation

/// The file formats the decoders read, told apart by their first bytes.
package enum ImageFormat: String, Sendable {
    case jpeg = "JPEG"
    case png = "PNG"

    /// The format of `data`, or nil when it is neither JPEG nor PNG.
    package init?(sniffing data: Data) {
        let start = data.prefix(8)
        if start.starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if start.elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else {
            return nil
        }
    }
}
