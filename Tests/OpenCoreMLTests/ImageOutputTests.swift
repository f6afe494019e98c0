#if !canImport(CoreVideo)
import CoreMLSpec
import Foundation
import OpenCoreML
import Testing
import _OpenCoreMLTestSupport

/// Image outputs: a network's channel planes come back as an image, as Core ML gives them —
/// 32BGRA for RGB and BGR colour spaces, OneComponent8 for grayscale — with values rounded and
/// clamped to 0…255.
@Suite("Image outputs")
struct ImageOutputTests {
    /// `y = 2 x + 1` (a linear activation) from a [channels, 2, 3] multi-array to a 3×2 image.
    static func model(_ colorSpace: CoreML_Specification_ImageFeatureType.ColorSpace, channels: Int64) -> CoreML_Specification_Model {
        var model = CoreML_Specification_Model()
        model.specificationVersion = 4
        model.description_p.input = [TestSpecs.array("x", [channels, 2, 3])]
        model.description_p.output = [TestSpecs.feature("picture") {
            $0.imageType.width = 3
            $0.imageType.height = 2
            $0.imageType.colorSpace = colorSpace
        }]
        model.neuralNetwork.layers = [TestSpecs.layer("double", ["x"], ["picture"]) {
            $0.activation.linear.alpha = 2
            $0.activation.linear.beta = 1
        }]
        return model
    }

    static func predict(_ model: CoreML_Specification_Model, _ values: [Float]) throws -> PixelBuffer {
        let channels = model.description_p.input[0].type.multiArrayType.shape[0]
        let x = try MLMultiArray(shape: [NSNumber(value: channels), 2, 3], dataType: .float32)
        for (index, value) in values.enumerated() { x[index] = NSNumber(value: value) }
        let output = try MLModel(specification: model).prediction(from: MLDictionaryFeatureProvider(dictionary: ["x": x]))
        let value = try #require(output.featureValue(for: "picture"))
        #expect(value.type == .image)
        return try #require(value.imageBufferValue)
    }

    /// The byte at column `x`, row `y`, offset `channel` within the pixel.
    static func byte(_ buffer: PixelBuffer, _ x: Int, _ y: Int, _ channel: Int, _ bytesPerPixel: Int) -> UInt8 {
        buffer.baseAddress.load(fromByteOffset: y * buffer.bytesPerRow + x * bytesPerPixel + channel, as: UInt8.self)
    }

    @Test(arguments: [CoreML_Specification_ImageFeatureType.ColorSpace.rgb, .bgr])
    func colourPlanesBecomeBGRAPixels(colorSpace: CoreML_Specification_ImageFeatureType.ColorSpace) throws {
        // Planes 0, 1, 2 of six pixels each; 2 x + 1 spans -199 … 301, so both ends clamp.
        let values: [Float] = (0..<18).map { Float($0 * 29 - 100) / Float(2) }
        let buffer = try Self.predict(Self.model(colorSpace, channels: 3), values)
        #expect(buffer.width == 3 && buffer.height == 2)
        #expect(buffer.pixelFormatType == 0x4247_5241)  // 'BGRA'
        for y in 0..<2 {
            for x in 0..<3 {
                let planes = (0..<3).map { plane -> UInt8 in
                    let computed = 2 * values[plane * 6 + y * 3 + x] + 1
                    return UInt8(min(max(computed.rounded(), 0), 255))
                }
                let (red, green, blue) = colorSpace == .bgr ? (planes[2], planes[1], planes[0]) : (planes[0], planes[1], planes[2])
                #expect(Self.byte(buffer, x, y, 0, 4) == blue)
                #expect(Self.byte(buffer, x, y, 1, 4) == green)
                #expect(Self.byte(buffer, x, y, 2, 4) == red)
                #expect(Self.byte(buffer, x, y, 3, 4) == 255)
            }
        }
    }

    @Test func aGrayPlaneBecomesOneBytePerPixel() throws {
        let values: [Float] = [0, 10, 60.2, 127, -3, 400]
        let buffer = try Self.predict(Self.model(.grayscale, channels: 1), values)
        #expect(buffer.pixelFormatType == 0x4C30_3038)  // 'L008'
        let expected: [UInt8] = [1, 21, 121, 255, 0, 255]
        for index in 0..<6 { #expect(Self.byte(buffer, index % 3, index / 3, 0, 1) == expected[index]) }
    }

    @Test func anOutputOfAnotherSizeThanDeclaredIsAnErrorNamingIt() throws {
        var model = Self.model(.grayscale, channels: 1)
        model.description_p.output[0].type.imageType.width = 4
        #expect {
            _ = try Self.predict(model, [Float](repeating: 0, count: 6))
        } throws: { ($0 as? MLModelError)?.message.contains("'picture'") == true }
    }
}
#endif
