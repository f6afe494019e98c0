import Foundation

extension MLImageClassifier {
    /// The model that turns each picture into the classifier's features (Create ML's
    /// `MLImageClassifier.FeatureExtractorType`).
    public enum FeatureExtractorType: Sendable, Equatable, Hashable, CustomStringConvertible {
        /// The built-in feature extractor. Create ML's is Apple's Vision scene print; OpenCoreML's
        /// is EfficientNet-Lite0 (ImageNet) up to block 9's depthwise convolution (672 features,
        /// the maximum of each ReLU6 channel; 8-bit weights, 513 KB), shipped inside the package:
        /// any `revision` (1, 2, or nil for the latest) selects it.
        case scenePrint(revision: Int?)
        /// A Core ML model that you provide, or one of its layers.
        case custom(CustomFeatureExtractor)

        public var description: String {
            switch self {
            case .scenePrint(let revision): return "scenePrint(revision: \(revision.map(String.init) ?? "nil"))"
            case .custom(let custom): return "custom(\(custom.modelPath.path)\(custom.outputName.map { ", output \($0)" } ?? ""))"
            }
        }
    }

    /// A feature extractor you provide (Create ML's `MLImageClassifier.CustomFeatureExtractor`): a
    /// neural network `.mlmodel` with one image input, used whole or cut at one of its layers.
    public struct CustomFeatureExtractor: Sendable, Equatable, Hashable {
        /// The `.mlmodel` file: a neural network (or neural-network classifier) whose one input is an image.
        public var modelPath: URL
        /// The blob (a layer's output, or a model output) whose values are the features; nil when
        /// the model has exactly one multi-array output. A blob of shape C×H×W gives C·H·W features.
        public var outputName: String?

        /// A feature extractor in the model at `modelPath`, cut at the layer output `outputName`
        /// (nil: the model's one multi-array output).
        public init(modelPath: URL, outputName: String? = nil) {
            self.modelPath = modelPath
            self.outputName = outputName
        }
    }

    /// The `.mlmodel` file of the built-in feature extractor (`.scenePrint`), a resource of this
    /// package: EfficientNet-Lite0 up to block 9's depthwise convolution, its 672 ReLU6 channels
    /// max-pooled, convolution weights as 8-bit codes (made by `Scripts/make-bundled-extractor.sh`; Apache-2.0, see
    /// `LICENSE-EfficientNet-Lite0.txt` beside it).
    public static var builtInFeatureExtractorURL: URL {
        get throws {
            // A library copied away from its build folder (the Python wheel) finds the resource in
            // the folder OPENCOREML_RESOURCES names; SwiftPM's `Bundle.module` would stop the
            // process when its bundle is in neither of the places it looks.
            if let directory = getenv("OPENCOREML_RESOURCES").map({ String(cString: $0) }), !directory.isEmpty {
                let url = URL(fileURLWithPath: directory).appendingPathComponent("EfficientNetLite0Features.mlmodel")
                guard FileManager.default.fileExists(atPath: url.path) else {
                    throw CreateMLError("scenePrint", "the built-in feature extractor is not in OPENCOREML_RESOURCES (\(directory))")
                }
                return url
            }
            guard let url = Bundle.module.url(forResource: "EfficientNetLite0Features", withExtension: "mlmodel") else {
                throw CreateMLError("scenePrint", "the built-in feature extractor EfficientNetLite0Features.mlmodel is missing from OpenCreateML's resource bundle")
            }
            return url
        }
    }
}

extension ImageFeatureExtractor {
    /// Loads the feature extractor `type` names: the built-in one for `.scenePrint` (revision 1,
    /// 2 or nil), or the model file (cut at `outputName` when one is given) for `.custom`.
    public init(_ type: MLImageClassifier.FeatureExtractorType) throws {
        switch type {
        case .scenePrint(let revision):
            if let revision, ![1, 2].contains(revision) {
                throw CreateMLError("scenePrint", "revision \(revision) does not exist (1, 2, or nil for the latest)")
            }
            // On Linux and everywhere else OpenCoreML runs, the scene print is our bundled EfficientNet-Lite0.
            try self.init(contentsOf: MLImageClassifier.builtInFeatureExtractorURL)
        case .custom(let custom):
            try self.init(contentsOf: custom.modelPath, outputName: custom.outputName)
        }
    }
}
