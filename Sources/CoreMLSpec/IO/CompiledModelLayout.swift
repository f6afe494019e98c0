import Foundation

/// OpenCoreML's layout of a compiled model (`.mlmodelc`) folder.
///
/// Core ML compiles a model into a private, undocumented folder that cannot be turned back into an
/// `.mlmodel`. OpenCoreML's compiled folder is documented and reversible:
///
/// ```
/// Name.mlmodelc/
///   model.mlmodel    the complete specification, the same bytes as the source model
///   metadata.json    a readable summary (format, spec version, model type, features)
/// ```
///
/// Apple-compiled folders (`coremldata.bin`, `model.espresso.*`) are not readable.
public enum CompiledModelLayout {
    /// The specification file inside the folder.
    public static let specificationFileName = "model.mlmodel"
    /// The summary file inside the folder.
    public static let metadataFileName = "metadata.json"
    /// Marks a folder written by OpenCoreML.
    public static let formatName = "opencoreml-compiled-model"
    /// Bumped when the layout changes incompatibly.
    public static let formatVersion = 1

    /// The summary stored beside the specification.
    public struct Metadata: Codable, Equatable, Sendable {
        public var format: String
        public var formatVersion: Int
        public var specificationVersion: Int
        public var modelType: String
        public var isUpdatable: Bool
        public var inputs: [String]
        public var outputs: [String]
        public var trainingInputs: [String]

        public init(model: CoreML_Specification_Model) {
            format = CompiledModelLayout.formatName
            formatVersion = CompiledModelLayout.formatVersion
            specificationVersion = Int(model.specificationVersion)
            modelType = model.modelTypeName
            isUpdatable = model.isUpdatable
            inputs = model.description_p.input.map(\.name)
            outputs = model.description_p.output.map(\.name)
            trainingInputs = model.description_p.trainingInput.map(\.name)
        }
    }

    /// Whether `url` names a compiled model (by its extension).
    public static func isCompiledModelURL(_ url: URL) -> Bool {
        url.pathExtension.lowercased() == "mlmodelc"
    }
}
