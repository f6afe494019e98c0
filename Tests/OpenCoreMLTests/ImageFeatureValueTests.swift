import Foundation
import OpenCoreML
import Testing

/// `MLFeatureValue(imageAt:…)` against Pillow's decodes and resizes of the image fixtures
/// (`Tests/Fixtures/make_images.py`): the bytes land in the requested pixel format.
@Suite("Image feature values")
struct ImageFeatureValueTests {
    static let images = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/images")

    struct Reference: Decodable { var label: String; var width: Int; var height: Int; var rgba: [UInt8] }
    struct Decoded: Decodable { var width: Int; var height: Int; var rgba: [UInt8] }
    struct File: Decodable { var resizes: [Reference]; var decoded: [String: Decoded] }
    static let references = try! JSONDecoder().decode(File.self, from: Data(contentsOf: images.appendingPathComponent("images.json")))

    /// The buffer's pixels as RGBA bytes.
    static func rgba(_ buffer: CVPixelBuffer) -> [UInt8] {
        let base = CVPixelBufferGetBaseAddress(buffer)!.assumingMemoryBound(to: UInt8.self)
        var result: [UInt8] = []
        for y in 0..<CVPixelBufferGetHeight(buffer) {
            for x in 0..<CVPixelBufferGetWidth(buffer) {
                let p = base + y * CVPixelBufferGetBytesPerRow(buffer)
                switch CVPixelBufferGetPixelFormatType(buffer) {
                case kCVPixelFormatType_32BGRA: result += [p[4 * x + 2], p[4 * x + 1], p[4 * x], p[4 * x + 3]]
                case kCVPixelFormatType_32ARGB: result += [p[4 * x + 1], p[4 * x + 2], p[4 * x + 3], p[4 * x]]
                case kCVPixelFormatType_32RGBA: result += [p[4 * x], p[4 * x + 1], p[4 * x + 2], p[4 * x + 3]]
                case kCVPixelFormatType_24RGB: result += [p[3 * x], p[3 * x + 1], p[3 * x + 2], 255]
                default: result += [p[x], p[x], p[x], 255]
                }
            }
        }
        return result
    }

    static func maxDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
        a.count == b.count ? zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0 : 1000
    }

    @Test(arguments: [("centerCrop", VNImageCropAndScaleOption.centerCrop), ("scaleFill", .scaleFill)])
    func cropAndScaleOptionsMatchPillow(label: String, option: VNImageCropAndScaleOption) throws {
        let reference = Self.references.resizes.first { $0.label == label }!
        for format in [kCVPixelFormatType_32BGRA, kCVPixelFormatType_32ARGB, kCVPixelFormatType_32RGBA, kCVPixelFormatType_24RGB] {
            let value = try MLFeatureValue(
                imageAt: Self.images.appendingPathComponent("rgb.png"), pixelsWide: 16, pixelsHigh: 16, pixelFormatType: format,
                options: [.cropAndScale: option.rawValue])
            let buffer = try #require(value.imageBufferValue)
            #expect(CVPixelBufferGetPixelFormatType(buffer) == format)
            #expect(Self.maxDifference(Self.rgba(buffer), reference.rgba) <= 1)
        }
    }

    @Test func scaleFitLeavesBlackBars() throws {
        // The fixture's scaleFit reference is transparent in the bars; the pixel buffer is opaque black there.
        let reference = Self.references.resizes.first { $0.label == "scaleFit" }!
        let value = try MLFeatureValue(
            imageAt: Self.images.appendingPathComponent("rgb.png"), pixelsWide: 16, pixelsHigh: 16,
            pixelFormatType: kCVPixelFormatType_32BGRA, options: [.cropAndScale: VNImageCropAndScaleOption.scaleFit])
        let opaque = stride(from: 0, to: reference.rgba.count, by: 4).flatMap { i -> [UInt8] in
            let a = reference.rgba[i + 3]
            return a == 0 ? [0, 0, 0, 255] : Array(reference.rgba[i..<(i + 4)])
        }
        #expect(Self.maxDifference(Self.rgba(value.imageBufferValue!), opaque) <= 1)
    }

    @Test func grayscaleIsBT601LumaAndOrientationIsApplied() throws {
        // orientation-6.png is stored turned; loaded at its own (upright) size it must equal the blocks.
        let blocks = Self.references.decoded["blocks"]!
        let gray = try MLFeatureValue(
            imageAt: Self.images.appendingPathComponent("orientation-6.png"), pixelsWide: 48, pixelsHigh: 32,
            pixelFormatType: kCVPixelFormatType_OneComponent8)
        let expected = stride(from: 0, to: blocks.rgba.count, by: 4).flatMap { i -> [UInt8] in
            let (r, g, b) = (Double(blocks.rgba[i]), Double(blocks.rgba[i + 1]), Double(blocks.rgba[i + 2]))
            let weighted: Double = 0.299 * r + 0.587 * g + 0.114 * b
            let luma = UInt8(weighted.rounded())
            return [luma, luma, luma, 255]
        }
        #expect(Self.maxDifference(Self.rgba(gray.imageBufferValue!), expected) <= 1)
    }

    @Test func cropRectIsNormalizedFromTheBottomLeft() throws {
        // The top-left quarter of the 48×32 blocks picture: normalized (0, 0.5, 0.5, 0.5).
        let blocks = Self.references.decoded["blocks"]!
        let value = try MLFeatureValue(
            imageAt: Self.images.appendingPathComponent("orientation-1.jpg"), pixelsWide: 24, pixelsHigh: 16,
            pixelFormatType: kCVPixelFormatType_32RGBA, options: [.cropRect: CGRect(x: 0, y: 0.5, width: 0.5, height: 0.5)])
        var expected: [UInt8] = []
        for y in 0..<16 {
            let start: Int = y * 48 * 4
            expected += blocks.rgba[start..<(start + 24 * 4)]
        }
        #expect(Self.maxDifference(Self.rgba(value.imageBufferValue!), expected) <= 2)
    }

    @Test func badFilesAndOptionsAreClearErrors() throws {
        let missing = Self.images.appendingPathComponent("missing.jpg")
        #expect {
            try MLFeatureValue(imageAt: missing, pixelsWide: 4, pixelsHigh: 4, pixelFormatType: kCVPixelFormatType_32BGRA)
        } throws: { error in
            (error as? MLModelError)?.code == .io && "\(error)".contains(missing.path) && "\(error)".contains("no such file")
        }
        let url = Self.images.appendingPathComponent("rgb.png")
        #expect(throws: MLModelError.self) {
            try MLFeatureValue(imageAt: url, pixelsWide: 4, pixelsHigh: 4, pixelFormatType: 0x7975_7679)  // 'yuvy'
        }
        #expect(throws: MLModelError.self) {
            try MLFeatureValue(imageAt: url, pixelsWide: 4, pixelsHigh: 4, pixelFormatType: kCVPixelFormatType_32BGRA,
                               options: [.cropAndScale: VNImageCropAndScaleOption.scaleFitRotate90CCW.rawValue])
        }
    }
}
