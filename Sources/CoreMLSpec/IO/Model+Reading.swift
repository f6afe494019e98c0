import Foundation
import SwiftProtobuf

extension CoreML_Specification_Model {
    /// Reads a model from an `.mlmodel` file, an `.mlpackage` folder (its root model; an ML
    /// Program's weights stay in the package, see ``ModelPackage``) or an OpenCoreML `.mlmodelc`
    /// folder.
    ///
    /// Throws ``ModelFileError`` naming the path and the problem when nothing is there, the file is
    /// truncated or not protobuf, the protobuf is not a Core ML model, or a file read from a package
    /// or compiled folder is a symbolic link that leaves it (``ContainedPath``). It does not validate the
    /// model: call ``validate()`` for that.
    public init(contentsOf url: URL) throws {
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ModelFileError(.notFound, path: url.path, reason: "no such file or folder")
        }
        var fileURL = url
        if isDirectory.boolValue && ModelPackage.isPackage(url) {
            fileURL = try ModelPackage(contentsOf: url).rootModelURL
        } else if isDirectory.boolValue {
            fileURL = try CompiledModelLayout.fileURL(CompiledModelLayout.specificationFileName, in: url)
            guard fileManager.fileExists(atPath: fileURL.path) else {
                let apple = fileManager.fileExists(atPath: url.appendingPathComponent("coremldata.bin").path)
                let reason = apple
                    ? "a model compiled by Apple's Core ML; OpenCoreML reads .mlmodel files and its own .mlmodelc folders"
                    : "a folder that is not a compiled model (no \(CompiledModelLayout.specificationFileName) inside)"
                throw ModelFileError(.notAModel, path: url.path, reason: reason)
            }
        }
        let data: Data
        do {
            data = try Data(contentsOf: fileURL)
        } catch {
            throw ModelFileError(.unreadable, path: fileURL.path, reason: "could not be read (\((error as NSError).localizedDescription))")
        }
        try self.init(serializedModel: data, path: url.path)
    }

    /// Decodes a model from the bytes of an `.mlmodel` file; `path` names the source in errors.
    public init(serializedModel data: Data, path: String = "<data>") throws {
        if data.isEmpty {
            throw ModelFileError(.notCoreML, path: path, reason: "the file is empty")
        }
        do {
            try self.init(serializedBytes: data)
        } catch let error as BinaryDecodingError {
            throw ModelFileError(.corrupt, path: path, reason: Self.explain(error))
        } catch {
            throw ModelFileError(.corrupt, path: path, reason: "not a Core ML model: the protobuf data could not be decoded (\(error))")
        }
        if let reason = notCoreMLReason {
            throw ModelFileError(.notCoreML, path: path, reason: reason)
        }
    }

    /// Why decoded protobuf is not a Core ML model, or nil when it looks like one.
    ///
    /// Arbitrary bytes sometimes decode as protobuf; a Core ML model has a positive specification
    /// version, a description and a model type (a known one, or one Apple defines that we don't model).
    private var notCoreMLReason: String? {
        if specificationVersion <= 0 || !hasDescription_p {
            return "not a Core ML model: protobuf data without a specification version and model description"
        }
        if type == nil && unsupportedModelType == nil {
            return "not a Core ML model: the specification names no model type"
        }
        return nil
    }

    private static func explain(_ error: BinaryDecodingError) -> String {
        switch error {
        case .truncated:
            return "truncated or corrupt: the protobuf data ends in the middle of a field"
        case .malformedProtobuf:
            return "corrupt: not valid protobuf data, so not a Core ML model"
        case .invalidUTF8:
            return "corrupt: a text field is not valid UTF-8"
        case .messageDepthLimit:
            return "corrupt or hostile: messages nest more than 100 levels deep (a pipeline holds its models two levels down, so about 50 nested pipelines)"
        default:
            return "corrupt: the protobuf data could not be decoded (\(error))"
        }
    }
}
