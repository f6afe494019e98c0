import Foundation

extension ModelPackage {
    /// The root model's path under `Data/`, as coremltools names it.
    public static let rootModelPath = "com.apple.CoreML/model.mlmodel"
    /// The weights folder's path under `Data/`, and the weight file blob file values name in it.
    public static let weightsPath = "com.apple.CoreML/weights"
    public static let weightFileName = "@model_path/weights/weight.bin"

    /// Whether `url` names a package (its extension is `mlpackage`).
    public static func isPackageURL(_ url: URL) -> Bool { url.pathExtension.lowercased() == "mlpackage" }

    /// Writes `model` as an `.mlpackage` folder at `url`, as coremltools lays one out:
    /// `Manifest.json` listing the items, `Data/com.apple.CoreML/model.mlmodel` and, for an ML
    /// Program, `Data/com.apple.CoreML/weights/weight.bin` holding every value the program keeps
    /// in blob files.
    ///
    /// The blobs the program names are read from `source` (the package the model was read from) and
    /// written to the one new weight file, in their order in the source's files, so a package
    /// coremltools wrote is written back with the same offsets and bytes; the program's blob file
    /// values are updated to the new file and offsets. With `externalizingValuesOfAtLeast`, tensor
    /// values held in the program with at least that many values, of a type weight files hold
    /// (before iOS 18: float16, float32, uint8 and int8), move to the weight file too — coremltools
    /// moves those of 10 values or more.
    ///
    /// The package appears at `url` only once complete (written beside it, then renamed into place,
    /// replacing any package there in one step).
    ///
    /// - Throws: ``ModelFileError``: `.corrupt` naming the source's weight file or the operation
    ///   when a blob is missing or not what the program declares, or when the program names blob
    ///   files and there is no `source`; `.writeFailed` naming `url` when it cannot be written.
    public static func write(_ model: CoreML_Specification_Model, weightsFrom source: ModelPackage?, to url: URL,
                             externalizingValuesOfAtLeast minimumCount: Int? = nil) throws {
        var model = model
        var weights: MILBlobFileWriter?
        if case .mlProgram(var program)? = model.type {
            weights = try collectWeights(of: &program, from: source, specificationVersion: model.specificationVersion,
                                         minimumCount: minimumCount, destination: url)
            model.mlProgram = program
        }
        let specification: Data
        do {
            specification = try model.serializedModel()
        } catch {
            throw ModelFileError(.writeFailed, path: url.path, reason: "the model could not be encoded (\(error))")
        }
        let manifest = try manifestData(withWeights: weights != nil, destination: url)
        try AtomicFileWriter.writeDirectory(to: url) { folder in
            let data = folder.appendingPathComponent("Data")
            let fileManager = FileManager.default
            let root = data.appendingPathComponent(rootModelPath)
            try fileManager.createDirectory(at: root.deletingLastPathComponent(), withIntermediateDirectories: true)
            try specification.write(to: root)
            if let weights {
                let folder = data.appendingPathComponent(weightsPath)
                try fileManager.createDirectory(at: folder, withIntermediateDirectories: true)
                try weights.data.write(to: folder.appendingPathComponent("weight.bin"))
            }
            try manifest.write(to: folder.appendingPathComponent(manifestName))
        }
    }

    /// The manifest: the root model item and, with weights, the weights folder item, under new
    /// identifiers.
    private static func manifestData(withWeights: Bool, destination: URL) throws -> Data {
        func item(_ name: String, _ path: String, _ description: String) -> [String: String] {
            ["author": "com.apple.CoreML", "description": description, "name": name, "path": path]
        }
        let rootIdentifier = UUID().uuidString.lowercased()
        var items = [rootIdentifier: item("model.mlmodel", rootModelPath, "CoreML Model Specification")]
        if withWeights { items[UUID().uuidString.lowercased()] = item("weights", weightsPath, "CoreML Model Weights") }
        let manifest: [String: Any] = ["fileFormatVersion": "1.0.0", "itemInfoEntries": items, "rootModelIdentifier": rootIdentifier]
        do {
            return try JSONSerialization.data(withJSONObject: manifest, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        } catch {
            throw ModelFileError(.writeFailed, path: destination.path, reason: "the manifest could not be encoded (\(error))")
        }
    }

    /// The new weight file for `program`, whose blob file values (and, with `minimumCount`, large
    /// immediate values) are pointed at it.
    private static func collectWeights(of program: inout CoreML_Specification_MILSpec_Program, from source: ModelPackage?,
                                       specificationVersion: Int32, minimumCount: Int?, destination: URL) throws -> MILBlobFileWriter {
        // The blobs referenced, resolved and checked, in their order in the source's files.
        var resolver = source.map { MILBlobResolver(package: $0) }
        var referenced: [String: (fileName: String, offset: UInt64, blob: MILBlobFile.Blob)] = [:]
        try program.updateHeldValues(opsetBodiesOnly: false) { operation, name, value in
            guard case .blobFileValue(let blobValue)? = value.value else { return }
            let key = "\(blobValue.offset)@\(blobValue.fileName)"
            guard referenced[key] == nil else { return }
            guard resolver != nil else {
                throw ModelFileError(.corrupt, path: destination.path,
                                     reason: "operation '\(operation)', \(name): the value is kept in blob file '\(blobValue.fileName)', and there is no package to read it from")
            }
            let blob = try resolver!.blob(blobValue, declared: value.type, place: "operation '\(operation)', \(name)")
            referenced[key] = (blobValue.fileName, blobValue.offset, blob)
        }
        var writer = MILBlobFileWriter()
        var newOffsets: [String: UInt64] = [:]
        for (key, entry) in referenced.sorted(by: { ($0.value.fileName, $0.value.offset) < ($1.value.fileName, $1.value.offset) }) {
            // The reader checked the blob's size against its type and count.
            newOffsets[key] = writer.append(entry.blob.dataType, count: entry.blob.count, bytes: entry.blob.data)!
        }
        // Equal values moved out of the program share one blob, as a weight file shares one blob between references.
        struct Stored: Hashable { var dataType: MILBlobFile.DataType, count: Int, bytes: Data }
        var moved: [Stored: UInt64] = [:]
        let movable: Set<MILBlobFile.DataType> = specificationVersion >= 9
            ? Set(MILBlobFile.DataType.allCases) : [.float16, .float32, .uint8, .int8]
        try program.updateHeldValues(opsetBodiesOnly: false) { operation, name, value in
            switch value.value {
            case .blobFileValue(let blobValue)?:
                value.blobFileValue.fileName = weightFileName
                value.blobFileValue.offset = newOffsets["\(blobValue.offset)@\(blobValue.fileName)"]!
            case .immediateValue(let immediate)?:
                guard let minimumCount, case .tensor(let tensor)? = immediate.value,
                      let dataType = MILBlobFile.DataType(value.type.tensorType.dataType), movable.contains(dataType),
                      let count = staticCount(value.type), count >= minimumCount else { return }
                let bytes: Data
                switch tensor.value {
                case .bytes(let raw)?: bytes = raw.values
                case .floats(let floats)? where dataType == .float32:
                    bytes = Data(floats.values.flatMap { withUnsafeBytes(of: $0.bitPattern.littleEndian, Array.init) })
                default: return
                }
                var blobValue = CoreML_Specification_MILSpec_Value.BlobFileValue()
                blobValue.fileName = weightFileName
                let stored = Stored(dataType: dataType, count: count, bytes: bytes)
                if let offset = moved[stored] {
                    blobValue.offset = offset
                } else {
                    guard let offset = writer.append(dataType, count: count, bytes: bytes) else {
                        throw ModelFileError(.corrupt, path: destination.path,
                                             reason: "operation '\(operation)', \(name): \(bytes.count) bytes of \(dataType) values; its shape holds \(count) values")
                    }
                    moved[stored] = offset
                    blobValue.offset = offset
                }
                value.blobFileValue = blobValue
            case nil:
                break
            }
        }
        return writer
    }

    /// The number of values a tensor type with constant dimensions holds (nil otherwise, or past 2³¹).
    private static func staticCount(_ type: CoreML_Specification_MILSpec_ValueType) -> Int? {
        guard case .tensorType(let tensor)? = type.type else { return nil }
        var count = 1
        for dimension in tensor.dimensions {
            guard case .constant(let constant)? = dimension.dimension, constant.size <= UInt64(Int32.max) else { return nil }
            let (product, overflow) = count.multipliedReportingOverflow(by: Int(constant.size))
            guard !overflow, product <= Int(Int32.max) else { return nil }
            count = product
        }
        return count
    }
}
