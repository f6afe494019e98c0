import Foundation
import OpenCoreML
import Testing

/// The converted EfficientNet-Lite0 (`Scripts/convert_efficientnet_lite0.py`) against the script's
/// independent float64 numpy forward pass of the same weights (`Tests/Fixtures/efficientnet`):
/// the picture goes in as an image (BGRA pixel buffer → RGB planes → the model's (x − 127) / 128),
/// through 16 MBConv blocks with depthwise (grouped) convolutions, to the 1280 pooled features.
///
/// The model is not committed (18 MB): `Scripts/make-efficientnet.sh` converts it, and CI does so
/// before `swift test` (`.ci/run`).
@Suite("EfficientNet-Lite0")
struct EfficientNetTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = root.appendingPathComponent("Tests/Fixtures/efficientnet")
    /// `$OPENCOREML_EFFICIENTNET` (which must then exist: CI sets it), else the default path if the
    /// model is there.
    static let modelURL: URL? = {
        if let path = ProcessInfo.processInfo.environment["OPENCOREML_EFFICIENTNET"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        let path = root.appendingPathComponent(".build/models/EfficientNetLite0.mlmodel").path
        return FileManager.default.fileExists(atPath: path) ? URL(fileURLWithPath: path) : nil
    }()

    struct Reference: Decodable {
        struct Picture: Decodable { var picture: String; var features: String; var top5: [Int]; var top5Labels: [String] }
        var pictures: [Picture]
    }

    @Test(.enabled(if: modelURL != nil, "convert the model first: Scripts/make-efficientnet.sh"))
    func featuresMatchTheNumpyForwardPass() throws {
        let model = try MLModel(contentsOf: Self.modelURL!)
        let input = try #require(model.modelDescription.inputDescriptionsByName["image"])
        let constraint = try #require(input.imageConstraint)
        #expect(constraint.pixelsWide == 224 && constraint.pixelsHigh == 224)
        let reference = try JSONDecoder().decode(Reference.self, from: Data(contentsOf: Self.fixtures.appendingPathComponent("reference.json")))
        #expect(reference.pictures.count == 2)
        for picture in reference.pictures {
            let image = try MLFeatureValue(imageAt: Self.fixtures.appendingPathComponent(picture.picture), constraint: constraint)
            let output = try model.prediction(from: MLDictionaryFeatureProvider(dictionary: ["image": image]))
            let features = try #require(output.featureValue(for: "features")?.multiArrayValue)
            let expected = try Data(contentsOf: Self.fixtures.appendingPathComponent(picture.features)).withUnsafeBytes {
                Array($0.bindMemory(to: Float.self))
            }
            #expect(features.count == 1280 && expected.count == 1280)
            let difference = (0..<1280).map { abs(features[$0].floatValue - expected[$0]) }.max()!
            #expect(difference < 1e-3, "\(picture.picture): features differ by up to \(difference)")
            #expect(expected.contains { $0 > 0.5 })  // not a degenerate all-zero reference
            if let label = output.featureValue(for: "classLabel") {
                let top = label.type == .string ? label.stringValue : String(label.int64Value)
                #expect(top == picture.top5Labels[0] || top == String(picture.top5[0]))
            }
        }
    }
}
