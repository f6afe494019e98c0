import Foundation

extension CoreML_Specification_Model {
    /// The model's bytes as an `.mlmodel` file holds them.
    public func serializedModel() throws -> Data {
        try serializedBytes()
    }

    /// Writes the model to `url` atomically: an `.mlmodel` file, an OpenCoreML `.mlmodelc` folder
    /// when the extension is `mlmodelc` (see ``CompiledModelLayout``), or an `.mlpackage` when it
    /// is `mlpackage` (see ``ModelPackage/write(_:weightsFrom:to:externalizingValuesOfAtLeast:)``:
    /// an ML Program's tensor values of 10 values or more go to its weight file, as coremltools
    /// keeps them; a program that names blob files must be written from its package instead).
    ///
    /// The destination is replaced only once the whole model has been written; on failure it is untouched.
    public func write(to url: URL) throws {
        if ModelPackage.isPackageURL(url) {
            try ModelPackage.write(self, weightsFrom: nil, to: url, externalizingValuesOfAtLeast: 10)
            return
        }
        let data: Data
        do {
            data = try serializedModel()
        } catch {
            throw ModelFileError(.writeFailed, path: url.path, reason: "the model could not be encoded (\(error))")
        }
        if CompiledModelLayout.isCompiledModelURL(url) {
            let metadata = CompiledModelLayout.Metadata(model: self)
            try AtomicFileWriter.writeDirectory(to: url) { folder in
                try data.write(to: folder.appendingPathComponent(CompiledModelLayout.specificationFileName))
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                try encoder.encode(metadata).write(to: folder.appendingPathComponent(CompiledModelLayout.metadataFileName))
            }
        } else {
            try AtomicFileWriter.write(data, to: url)
        }
    }
}
