import Foundation
import _OpenCoreMLImageIO

/// The pictures in `Tests/Fixtures/images` and what Pillow made of them (`make_images.py`).
enum ImageFixtures {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/images")

    static func url(_ name: String) -> URL { directory.appendingPathComponent(name) }

    struct Picture: Decodable {
        var width: Int
        var height: Int
        var rgba: [UInt8]
        var image: RGBAImage { RGBAImage(width: width, height: height, pixels: rgba) }
    }

    struct Resize: Decodable {
        var label: String
        var width: Int
        var height: Int
        var box: [Double]
        var rgba: [UInt8]
        var image: RGBAImage { RGBAImage(width: width, height: height, pixels: rgba) }
    }

    struct File: Decodable {
        var decoded: [String: Picture]
        var resizes: [Resize]
    }

    static let references: File = {
        let data = try! Data(contentsOf: directory.appendingPathComponent("images.json"))
        return try! JSONDecoder().decode(File.self, from: data)
    }()

    /// The largest difference of any byte between two pictures of the same size (nil if the sizes differ).
    static func maxDifference(_ a: RGBAImage, _ b: RGBAImage) -> Int? {
        guard a.width == b.width, a.height == b.height else { return nil }
        return zip(a.pixels, b.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
    }
}
