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
        /// ``CompiledModelLayout/formatName``, marking the folder as OpenCoreML's.
        public var format: String
        /// The layout's version, ``CompiledModelLayout/formatVersion`` when written.
        public var formatVersion: Int
        /// The model's specification version.
        public var specificationVersion: Int
        /// The model type's name, such as `neuralNetwork`.
        public var modelType: String
        /// Whether the model can be trained on device.
        public var isUpdatable: Bool
        /// The names of the model's inputs, in order.
        public var inputs: [String]
        /// The names of the model's outputs, in order.
        public var outputs: [String]
        /// The names of the model's training inputs, in order.
        public var trainingInputs: [String]

        /// The summary of `model`.
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

    /// The file `name` (such as ``specificationFileName``) inside the compiled folder `folder`,
    /// checked to stay inside it once symbolic links are resolved (``ContainedPath``).
    ///
    /// - Throws: ``ModelFileError`` naming the file when it, or a folder on its way, is a symbolic
    ///   link that leaves the compiled folder.
    public static func fileURL(_ name: String, in folder: URL) throws -> URL {
        try ContainedPath.url(name, in: folder, kind: "compiled model")
    }

    /// Whether `url` names a compiled model (by its extension).
    public static func isCompiledModelURL(_ url: URL) -> Bool {
        url.pathExtension.lowercased() == "mlmodelc"
    }
}
