#if !canImport(CoreVideo)
import Foundation
import OpenCoreML
import Testing

/// Image features of ML Programs (Scripts/make_image_program_fixtures.py: tiny PyTorch models
/// converted with coremltools' `ct.ImageType` inputs and outputs, with PyTorch's outputs for the
/// committed photo.png and gray.png in image_facts.json). coremltools writes the scale and bias
/// into the program, so these check that the runner feeds it the raw pixels in the colour
/// layout's channel order, and turns [1, C, H, W] outputs into images (rounded, clamped bytes; half
/// floats kept) — within 1e-4 for float32 programs, 1e-2 of the largest magnitude for float16 ones
/// (float16 weights against a float32 reference), and ±1 (±2 for float16) on 8-bit pixels, whose
/// rounding a last-digit difference can tip.
@Suite("ML Program image features")
struct MLProgramImageTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/mlprogram/images")

    static func facts() throws -> [String: [String: Any]] {
        try #require(JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("image_facts.json"))) as? [String: [String: Any]])
    }

    /// The package's image input read from its PNG, as an app would (scaled to the input's size,
    /// here the PNG's own).
    static func input(_ model: MLModel, file: String) throws -> MLFeatureValue {
        let constraint = try #require(model.modelDescription.inputDescriptionsByName["image"]?.imageConstraint)
        return try MLFeatureValue(imageAt: folder.appendingPathComponent(file), constraint: constraint)
    }

    /// An image's values as [C, H, W] planes in `order` ("RGB", "BGR" or gray): bytes of 32BGRA
    /// and OneComponent8 buffers, half floats of OneComponent16Half ones.
    static func planes(_ image: CVPixelBuffer, layout: String) -> [Double] {
        let (width, height) = (CVPixelBufferGetWidth(image), CVPixelBufferGetHeight(image))
        let base = CVPixelBufferGetBaseAddress(image)!
        let stride = CVPixelBufferGetBytesPerRow(image)
        switch CVPixelBufferGetPixelFormatType(image) {
        case kCVPixelFormatType_OneComponent8:
            return (0..<height * width).map { Double(base.load(fromByteOffset: ($0 / width) * stride + $0 % width, as: UInt8.self)) }
        case kCVPixelFormatType_OneComponent16Half:
            return (0..<height * width).map {
                Double(Float(Float16(bitPattern: base.loadUnaligned(fromByteOffset: ($0 / width) * stride + 2 * ($0 % width), as: UInt16.self))))
            }
        default:
            // BGRA bytes: blue 0, green 1, red 2; the planes in the layout's order.
            let offsets = layout == "BGR" ? [0, 1, 2] : [2, 1, 0]
            return offsets.flatMap { offset in
                (0..<height * width).map { Double(base.load(fromByteOffset: ($0 / width) * stride + 4 * ($0 % width) + offset, as: UInt8.self)) }
            }
        }
    }

    /// Compares an output with its facts.
    static func check(_ value: MLFeatureValue?, _ expected: [String: Any], package: String, layout: String, float16: Bool) throws {
        let reference = try #require(expected["values"] as? [Double])
        if expected["image"] as? Bool == true {
            let image = try #require(value?.imageBufferValue, "\(package): an image output")
            #expect(CVPixelBufferGetWidth(image) == expected["width"] as? Int && CVPixelBufferGetHeight(image) == expected["height"] as? Int,
                    "\(package): size \(CVPixelBufferGetWidth(image))×\(CVPixelBufferGetHeight(image))")
            let halfFloats = layout == "GRAYSCALE_FLOAT16"
            #expect(CVPixelBufferGetPixelFormatType(image) == (halfFloats ? kCVPixelFormatType_OneComponent16Half
                : layout.hasPrefix("GRAY") ? kCVPixelFormatType_OneComponent8 : kCVPixelFormatType_32BGRA))
            let got = planes(image, layout: layout)
            #expect(got.count == reference.count, "\(package): \(got.count) values")
            // 8-bit pixels are the tensor rounded and clamped; half floats are kept as computed.
            let wanted = halfFloats ? reference : reference.map { min(max($0.rounded(), 0), 255) }
            let tolerance = halfFloats ? 1.5 : float16 ? 2 : 1
            let worst = zip(got, wanted).map { abs($0 - $1) }.max() ?? 0
            #expect(worst <= tolerance, "\(package): pixels differ by up to \(worst)")
            return
        }
        let array = try #require(value?.multiArrayValue, "\(package): a multi-array output")
        #expect(array.shape.map(\.intValue) == expected["shape"] as? [Int])
        let tolerance = float16 ? 1e-2 * max(reference.map(abs).max() ?? 0, 1e-3) : 1e-4
        let worst = (0..<min(array.count, reference.count)).map { abs(array[$0].doubleValue - reference[$0]) }.max() ?? 0
        #expect(array.count == reference.count && worst <= tolerance, "\(package): differs by \(worst)")
    }

    @Test(arguments: ["ImageRGB", "ImageRGB16", "ImageBGR", "ImageBGR16", "ImageGray", "ImageGray16",
                      "ImageToImage", "ImageToImage16", "GrayToGray", "GrayHalf16", "ImageToImageFlexible"])
    func predictsAsPyTorchFromThePNG(_ name: String) throws {
        let package = name + ".mlpackage"
        let fact = try #require(try Self.facts()[package])
        let model = try MLModel(contentsOf: Self.folder.appendingPathComponent(package))
        let layout = try #require(fact["layout"] as? String)
        let prediction = try model.prediction(from: MLDictionaryFeatureProvider(dictionary: [
            "image": Self.input(model, file: try #require(fact["input"] as? String))
        ]))
        for (output, expected) in try #require(fact["outputs"] as? [String: [String: Any]]) {
            try Self.check(prediction.featureValue(for: output), expected, package: package, layout: layout, float16: fact["float16"] as? Bool == true)
        }
    }

    @Test func aFlexibleImageInputTakesAnotherSizeWithinItsRanges() throws {
        let fact = try #require(try Self.facts()["ImageToImageFlexible.mlpackage"])
        let crop = try #require(fact["crop"] as? [String: Any])
        let model = try MLModel(contentsOf: Self.folder.appendingPathComponent("ImageToImageFlexible.mlpackage"))
        let photo = try #require(try Self.input(model, file: "photo.png").imageBufferValue)
        // The photo's top-left 5×4 pixels, copied row by row.
        let small = try #require(PixelBuffer(width: 5, height: 4, pixelFormatType: kCVPixelFormatType_32BGRA))
        for y in 0..<4 {
            (CVPixelBufferGetBaseAddress(small)! + y * CVPixelBufferGetBytesPerRow(small))
                .copyMemory(from: CVPixelBufferGetBaseAddress(photo)! + y * CVPixelBufferGetBytesPerRow(photo), byteCount: 4 * 5)
        }
        let prediction = try model.prediction(from: MLDictionaryFeatureProvider(dictionary: ["image": MLFeatureValue(pixelBuffer: small)]))
        try Self.check(prediction.featureValue(for: "styled"), try #require(crop["styled"] as? [String: Any]),
                       package: "ImageToImageFlexible (5×4)", layout: "RGB", float16: false)
        // 3×4 is below the width range 4…16.
        let narrow = try #require(PixelBuffer(width: 3, height: 4, pixelFormatType: kCVPixelFormatType_32BGRA))
        #expect {
            try model.prediction(from: MLDictionaryFeatureProvider(dictionary: ["image": MLFeatureValue(pixelBuffer: narrow)]))
        } throws: { error in
            "\(error)".contains("input 'image' is a 3×4 image; the model expects a width of 4…16 and a height of 4…16")
        }
    }

    @Test func anImageOfAnotherSizeOrKindIsAClearError() throws {
        let model = try MLModel(contentsOf: Self.folder.appendingPathComponent("ImageRGB.mlpackage"))
        // A pixel buffer of another size is refused, not scaled (as by Core ML).
        let wrong = try #require(PixelBuffer(width: 5, height: 5, pixelFormatType: kCVPixelFormatType_32BGRA))
        #expect {
            try model.prediction(from: MLDictionaryFeatureProvider(dictionary: ["image": MLFeatureValue(pixelBuffer: wrong)]))
        } throws: { error in
            "\(error)".contains("input 'image' is a 5×5 image; the model expects 8×6")
        }
        let array = try MLMultiArray(shape: [1, 3, 6, 8], dataType: .float32)
        #expect {
            try model.prediction(from: MLDictionaryFeatureProvider(dictionary: ["image": MLFeatureValue(multiArray: array)]))
        } throws: { error in
            "\(error)".contains("input 'image' is a MultiArray; the model expects an image of 8×6 pixels")
        }
        // A file is scaled to the input's size (MLFeatureValue(imageAt:constraint:)), so it predicts.
        let big = try #require(PixelBuffer(width: 16, height: 12, pixelFormatType: kCVPixelFormatType_32BGRA))
        let png = FileManager.default.temporaryDirectory.appendingPathComponent("opencoreml-image-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: png) }
        try big.pngData().write(to: png)
        let constraint = try #require(model.modelDescription.inputDescriptionsByName["image"]?.imageConstraint)
        let scaled = try MLFeatureValue(imageAt: png, constraint: constraint)
        #expect(scaled.imageBufferValue.map { ($0.width, $0.height) } ?? (0, 0) == (8, 6))
        _ = try model.prediction(from: MLDictionaryFeatureProvider(dictionary: ["image": scaled]))
    }
}
#endif
