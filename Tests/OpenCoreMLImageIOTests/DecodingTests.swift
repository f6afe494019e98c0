import Foundation
import Testing
import _OpenCoreMLImageIO

/// Decoding against Pillow's decoders (`make_images.py`): PNG exactly, JPEG within one level
/// (both use libjpeg-turbo's default IDCT; the CMYK conversion rounds differently).
struct DecodingTests {
    @Test(arguments: ["rgb.png", "rgba.png", "gray.png", "palette.png", "rgb16.png"])
    func pngDecodesExactly(name: String) throws {
        let image = try RGBAImage(contentsOf: ImageFixtures.url(name))
        let reference = ImageFixtures.references.decoded[name]!.image
        #expect(ImageFixtures.maxDifference(image, reference) == 0)
    }

    @Test(arguments: ["photo.jpg", "progressive.jpg", "gray.jpg", "cmyk.jpg"])
    func jpegDecodesLikePillow(name: String) throws {
        let image = try RGBAImage(contentsOf: ImageFixtures.url(name))
        let reference = ImageFixtures.references.decoded[name]!.image
        let difference = try #require(ImageFixtures.maxDifference(image, reference))
        #expect(difference <= 1)
    }

    @Test(arguments: 1...8)
    func everyExifOrientationComesOutUpright(value: Int) throws {
        let name = "orientation-\(value).jpg"
        let data = try Data(contentsOf: ImageFixtures.url(name))
        #expect(RGBAImage.orientation(of: data) == ExifOrientation(rawValue: UInt16(value)))
        let image = try RGBAImage(contentsOf: ImageFixtures.url(name))
        let reference = ImageFixtures.references.decoded[name]!.image
        #expect(ImageFixtures.maxDifference(image, reference).map { $0 <= 1 } == true)
        // And the picture itself: 48×32 of flat 8×8 blocks, whatever the stored orientation.
        let blocks = ImageFixtures.references.decoded["blocks"]!.image
        #expect(ImageFixtures.maxDifference(image, blocks).map { $0 <= 2 } == true)
        // Without orientation the stored pixels come back (turned for 5…8).
        let stored = try RGBAImage(contentsOf: ImageFixtures.url(name), appliesOrientation: false)
        #expect(stored.width == (value >= 5 ? 32 : 48))
    }

    @Test func pngExifChunkIsHonoured() throws {
        let image = try RGBAImage(contentsOf: ImageFixtures.url("orientation-6.png"))
        #expect(image == ImageFixtures.references.decoded["blocks"]!.image)
    }

    @Test func orientationIsTheInverseOfItsStoredTurn() {
        // Turning a picture by each orientation and back by the inverse turn restores it.
        var image = RGBAImage(width: 3, height: 2)
        for i in 0..<6 { image[i % 3, i / 3] = SIMD4(UInt8(i), UInt8(10 * i), 0, 255) }
        let right = image.oriented(.right)
        #expect(right.width == 2 && right.height == 3)
        // Orientation 6: stored row 0 is the shown right column, stored column 0 the shown top row.
        #expect(right[1, 0] == image[0, 0])
        #expect(right[0, 0] == image[0, 1])
        #expect(right[1, 2] == image[2, 0])
        #expect(image.oriented(.left).oriented(.right).oriented(.down) == image.oriented(.down).oriented(.down).oriented(.down))
        #expect(image.oriented(.upMirrored).oriented(.upMirrored) == image)
    }

    @Test func truncatedAndCorruptFilesAreErrorsNamingTheFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ocm-images-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in ["photo.jpg", "progressive.jpg", "rgb.png"] {
            let data = try Data(contentsOf: ImageFixtures.url(name))
            var cases: [(String, Data)] = [
                ("half-" + name, data.prefix(data.count / 2)),
                ("header-" + name, data.prefix(12)),
            ]
            var scrambled = data
            for i in stride(from: data.count / 3, to: data.count - 2, by: 7) { scrambled[i] ^= 0x5A }
            cases.append(("scrambled-" + name, scrambled))
            for (file, bytes) in cases {
                let url = folder.appendingPathComponent(file)
                try bytes.write(to: url)
                do {
                    let image = try RGBAImage(contentsOf: url)
                    // A scrambled JPEG may still decode (libjpeg resynchronizes); it must be whole.
                    #expect(file.hasPrefix("scrambled-") && name.hasSuffix(".jpg"), "\(file) decoded to \(image.width)×\(image.height)")
                } catch let error as ImageError {
                    #expect(error.file == url.path)
                    #expect(error.description.contains(file))
                    #expect(error.reason.contains("corrupt or truncated"))
                }
            }
        }
        let text = folder.appendingPathComponent("notes.jpg")
        try Data("hello".utf8).write(to: text)
        #expect(throws: ImageError(file: text.path, reason: "not a JPEG or PNG image")) { try RGBAImage(contentsOf: text) }
        let missing = folder.appendingPathComponent("missing.png")
        #expect(throws: ImageError(file: missing.path, reason: "no such file")) { try RGBAImage(contentsOf: missing) }
    }
}

#if os(Linux)
/// A JPEG header is a few bytes, but the picture it claims can be huge. A progressive JPEG makes
/// libjpeg buffer every coefficient before the first row (2 bytes per pixel and component); the
/// decoder refuses what would take more than 1 GiB before libjpeg allocates it.
struct HugeJPEGHeaderTests {
    /// SOI, a quantization table, a progressive frame header of `width`×`height` with `components`
    /// components, one DC Huffman table, one scan header, EOI: at most 128 bytes, no image data.
    static func progressiveHeader(width: Int, height: Int, components: Int) -> Data {
        func segment(_ marker: UInt8, _ body: [UInt8]) -> [UInt8] {
            [0xFF, marker, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
        }
        var frame: [UInt8] = [8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), UInt8(components)]
        var scan: [UInt8] = [UInt8(components)]
        for c in 1...components {
            frame += [UInt8(c), 0x11, 0]
            scan += [UInt8(c), 0]
        }
        scan += [0, 0, 0]
        let bytes: [UInt8] = [0xFF, 0xD8] + segment(0xDB, [0] + [UInt8](repeating: 1, count: 64)) + segment(0xC2, frame)
            + segment(0xC4, [0, 1] + [UInt8](repeating: 0, count: 15) + [0]) + segment(0xDA, scan) + [0xFF, 0xD9]
        return Data(bytes)
    }

    static func decode(_ data: Data, named name: String) throws -> RGBAImage {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("ocm-\(UInt32.random(in: 0...UInt32.max))-\(name)")
        try data.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        return try RGBAImage(contentsOf: url)
    }

    /// Why decoding `data` fails (the `ImageError`'s reason); records an issue when it decodes.
    static func refusal(of data: Data, named name: String) throws -> String {
        do {
            let image = try decode(data, named: name)
            Issue.record("\(name) decoded to \(image.width)×\(image.height)")
            return ""
        } catch let error as ImageError {
            return error.reason
        }
    }

    @Test func aTinyFileClaimingAHugeProgressivePictureIsRefused() throws {
        // 12000 × 12000 × 3 components: 1,373 MB of coefficients and pixels from 128 bytes.
        let data = Self.progressiveHeader(width: 12_000, height: 12_000, components: 3)
        #expect(data.count == 128)
        let reason = try Self.refusal(of: data, named: "huge.jpg")
        #expect(reason.contains("a 12000x12000 progressive JPEG needs 1373 MB to decode, more than the 1024 MB"), "\(reason)")
    }

    @Test func aPictureOverTheSizeLimitIsRefusedFromItsHeader() throws {
        // 60000 × 60000 × 3: libjpeg would ask for 21.6 GB of coefficients if the size were checked
        // only after jpeg_start_decompress, as it once was.
        let data = Self.progressiveHeader(width: 60_000, height: 60_000, components: 3)
        let reason = try Self.refusal(of: data, named: "over.jpg")
        #expect(reason.contains("image size 60000x60000 is not supported"), "\(reason)")
    }

    @Test func aHeaderWithoutImageDataIsTruncated() throws {
        // A progressive header whose scan has no data: libjpeg would pad the picture with gray.
        let data = Self.progressiveHeader(width: 64, height: 48, components: 3)
        let reason = try Self.refusal(of: data, named: "small.jpg")
        #expect(reason.contains("premature end of data segment"), "\(reason)")
    }

    /// Found by fuzzing: a 417-byte baseline JPEG of 65332 × 2136 whose scan stops at a marker;
    /// libjpeg padded the rest with gray, filling 558 MB. A scan that ends early is an error.
    @Test func aBaselineScanThatEndsAtAMarkerIsTruncated() throws {
        let base64 = """
            /9j/4AAQSkZJRgABAQAAAQABAAD/4QAiu4eWmf//srIAKgAAAAgAAQH/AEludAABAAEAAAAAAAD/2wBDAAIBAQEBAQIBAQEC
            AgICAgQDAgICAgUEBAMEBgUGBgYFBgYGBwkIBgcJBwYGCAsICQoKCgoKBggLDAsKDAkKCgr/2wBDAQICAgICAgUDAwUKBwYH
            CgoKCgoKCgoKCgoKGQAAAAoKCgoKCgoKCgoKCgoKCgoKCgoKCgoaCgoKCgoKCgoKCgr/wAARCAhY/zQDAREAAhEBAxEB/8QA
            HwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFAQECAAECAxEEBSEwBhJBUQdhcRMiMvP09fb3+Pn6/9oADAMBAAIRAxEAPwD74r/L
            c7Dm6/2H7wV/i+fxueV1ZjAwMCyHxvX8PnxZ4nX+3h/MZ+jFfwGfFg8PDw8PDw8PDw8PDw8PDw8PDw8PDw8PDw8PDw8PDw8P
            Dw8PDw8PDw8PDw8PDw8PDw8PDw8PDw8PDw8PDw8PDw8PDw8PDw8PDw8PdZX85n2h4/X7Yf6IH//Z
            """
        let data = try #require(Data(base64Encoded: base64.filter { !$0.isWhitespace }))
        #expect(data.count == 417)
        let reason = try Self.refusal(of: data, named: "wide.jpg")
        #expect(reason.contains("premature end of data segment"), "\(reason)")
    }
}
#endif

/// Damaged files of every kind decode or throw `ImageError`; none may crash the process.
struct DamagedFileTests {
    @Test(arguments: ["photo.jpg", "progressive.jpg", "cmyk.jpg", "orientation-6.jpg", "rgb.png", "palette.png", "rgb16.png", "orientation-6.png"])
    func randomDamageNeverCrashes(name: String) throws {
        let original = try Data(contentsOf: ImageFixtures.url(name))
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15 &* UInt64(original.count)
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var failures = 0
        for trial in 0..<300 {
            var data = original
            switch trial % 3 {
            case 0: data = data.prefix(2 + next(data.count - 2))                      // truncated
            case 1: for _ in 0..<(1 + next(8)) { data[next(data.count)] = UInt8(next(256)) }  // bytes overwritten
            default: data.insert(contentsOf: (0..<next(40)).map { _ in UInt8(next(256)) }, at: 2 + next(data.count - 2))
            }
            do {
                let image = try RGBAImage(data: data, name: "damaged-\(trial)-\(name)")
                #expect(image.pixels.count == image.width * image.height * 4)
            } catch let error as ImageError {
                #expect(error.file == "damaged-\(trial)-\(name)")
                failures += 1
            }
        }
        #expect(failures > 0)
    }
}
