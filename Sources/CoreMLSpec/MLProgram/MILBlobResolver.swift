import Foundation

/// Finds the blobs an ML Program's blob file values name in its package, each checked against the
/// type and shape the program declares for it; each weight file is opened once.
package struct MILBlobResolver {
    package let package: ModelPackage
    private var files: [String: MILBlobFile] = [:]

    package init(package: ModelPackage) { self.package = package }

    /// The blob `blobValue` names, declared of `type`.
    ///
    /// - Throws: ``ModelFileError`` naming the weight file (missing, corrupt, a record past its
    ///   end) or `place` when the stored type or value count is not the one declared.
    package mutating func blob(_ blobValue: CoreML_Specification_MILSpec_Value.BlobFileValue, declared type: CoreML_Specification_MILSpec_ValueType,
                              place: String) throws -> MILBlobFile.Blob {
        let file: MILBlobFile
        if let open = files[blobValue.fileName] {
            file = open
        } else {
            file = try MILBlobFile(contentsOf: try package.blobFileURL(blobValue.fileName))
            files[blobValue.fileName] = file
        }
        let blob = try file.blob(at: blobValue.offset)
        let tensor = type.tensorType
        if let declared = MILBlobFile.DataType(tensor.dataType), declared != blob.dataType {
            throw ModelFileError(.corrupt, path: file.url.path,
                                 reason: "\(place): the blob at offset \(blobValue.offset) holds \(blob.dataType), the program declares \(declared)")
        }
        let sizes = tensor.dimensions.map { $0.constant.size }
        if tensor.dimensions.allSatisfy({ if case .constant? = $0.dimension { return true } else { return false } }) {
            var expected: UInt64? = 1
            for size in sizes {
                guard let product = expected?.multipliedReportingOverflow(by: size), !product.overflow else { expected = nil; break }
                expected = product.partialValue
            }
            if UInt64(blob.count) != expected {
                throw ModelFileError(.corrupt, path: file.url.path,
                                     reason: "\(place): the blob at offset \(blobValue.offset) holds \(blob.count) values, the shape \(sizes) needs \(expected.map(String.init) ?? "more than 2⁶⁴")")
            }
        }
        return blob
    }
}
