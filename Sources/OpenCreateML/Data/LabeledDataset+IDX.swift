import CoreMLSpec
import Foundation
import _OpenCoreMLFormats

extension LabeledDataset.Split {
    /// The images and labels file names of an IDX folder, without `.gz`.
    var fileNames: (images: String, labels: String) {
        switch self {
        case .train: return ("train-images-idx3-ubyte", "train-labels-idx1-ubyte")
        case .test: return ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")
        }
    }
}

/// A folder of MNIST-format IDX files (MNIST, Fashion-MNIST, KMNIST …): `train-images-idx3-ubyte`,
/// `train-labels-idx1-ubyte`, `t10k-images-idx3-ubyte`, `t10k-labels-idx1-ubyte`, each possibly gzipped
/// (`.gz`). Big-endian header: magic (0x00000803 images, 0x00000801 labels), counts, then one byte per
/// pixel or label.
enum IDXFormat {
    static let imagesMagic: UInt32 = 0x0000_0803
    static let labelsMagic: UInt32 = 0x0000_0801

    /// The `split` images and labels in `folder`, pixels multiplied by `scale`.
    static func load(folder: String, split: LabeledDataset.Split, scale: Float) throws -> LabeledDataset {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) else {
            throw CreateMLError(folder, "no such folder")
        }
        guard isFolder.boolValue else { throw CreateMLError(folder, "not a folder of IDX files") }

        let names = split.fileNames
        let imagesPath = try find(names.images, in: folder)
        let labelsPath = try find(names.labels, in: folder)
        let images = try read(imagesPath)
        let labels = try read(labelsPath)

        let imageHeader = try header(images, path: imagesPath, magic: imagesMagic, kind: "images", dimensions: 3)
        let labelHeader = try header(labels, path: labelsPath, magic: labelsMagic, kind: "labels", dimensions: 1)
        let count = imageHeader[0], rows = imageHeader[1], columns = imageHeader[2]
        guard rows > 0 && columns > 0 else {
            throw CreateMLError(imagesPath, "images of \(rows)×\(columns) pixels; both must be at least 1")
        }
        guard labelHeader[0] == count else {
            throw CreateMLError(labelsPath, "count mismatch: \(grouped(labelHeader[0])) labels for \(grouped(count)) images in \(imagesPath)")
        }
        guard let pixels = checkedProduct([rows, columns]), let total = checkedProduct([count, pixels]), total <= images.count else {
            throw CreateMLError(imagesPath, "truncated: \(grouped(images.count - 16)) bytes after the header, too few for \(grouped(count)) images of \(rows)×\(columns) bytes")
        }
        try checkLength(images, path: imagesPath, dimensions: 3, expected: total, what: "\(grouped(count)) images of \(rows)×\(columns) bytes")
        try checkLength(labels, path: labelsPath, dimensions: 1, expected: count, what: "\(grouped(count)) labels")

        let values = images.withUnsafeBytes { raw -> [Float] in
            let bytes = raw.bindMemory(to: UInt8.self)
            let start = 16
            return [Float](unsafeUninitializedCapacity: total) { buffer, initialized in
                for index in 0..<total { buffer[index] = Float(bytes[start + index]) * scale }
                initialized = total
            }
        }
        let classes = labels.withUnsafeBytes { raw in raw[8...].map { Int($0) } }
        let folderName = URL(fileURLWithPath: folder).standardizedFileURL.lastPathComponent
        return LabeledDataset(
            name: "\(folderName) (\(split.rawValue))", count: count, featureCount: pixels,
            values: values, labels: classes, sampleShape: [rows, columns])
    }

    /// `folder/name`, or `folder/name.gz` when only that exists.
    private static func find(_ name: String, in folder: String) throws -> String {
        let base = URL(fileURLWithPath: folder).appendingPathComponent(name).path
        for candidate in [base, base + ".gz"] where FileManager.default.fileExists(atPath: candidate) {
            return candidate
        }
        let expected = LabeledDataset.Split.allCases.flatMap { [$0.fileNames.images, $0.fileNames.labels] }
        throw CreateMLError(folder, "no \(name) or \(name).gz; an IDX folder holds \(expected.joined(separator: ", ")) (each optionally .gz)")
    }

    /// The file's bytes, inflated when they are gzip.
    private static func read(_ path: String) throws -> Data {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CreateMLError(path, "cannot be read (\(error.localizedDescription))")
        }
        return Gzip.isCompressed(data) ? try Gzip.decompress(data, path: path) : data
    }

    /// The header's sizes after checking the magic number; `data` is the uncompressed file.
    private static func header(_ data: Data, path: String, magic: UInt32, kind: String, dimensions: Int) throws -> [Int] {
        let headerLength = 4 + 4 * dimensions
        guard data.count >= 4 else {
            throw CreateMLError(path, "truncated: \(data.count) bytes, shorter than the \(headerLength)-byte IDX \(kind) header")
        }
        let found = bigEndianUInt32(data, at: 0)
        guard found == magic else {
            var problem = "wrong magic number 0x\(hex(found)), expected 0x\(hex(magic)) for IDX \(kind)"
            let elementType = found >> 8 & 0xFF, foundDimensions = found & 0xFF
            if found == imagesMagic || found == labelsMagic {
                problem += " (this is an IDX \(found == imagesMagic ? "images" : "labels") file)"
            } else if found >> 16 != 0 {
                problem += " (not an IDX file)"
            } else if elementType != 0x08 {
                problem += " (elements of type 0x\(String(elementType, radix: 16)), not unsigned bytes)"
            } else {
                problem += " (\(foundDimensions) dimensions, not \(dimensions))"
            }
            throw CreateMLError(path, problem)
        }
        guard data.count >= headerLength else {
            throw CreateMLError(path, "truncated: \(data.count) bytes, shorter than the \(headerLength)-byte IDX \(kind) header")
        }
        return (0..<dimensions).map { Int(bigEndianUInt32(data, at: 4 + 4 * $0)) }
    }

    /// Throws unless `data` holds exactly the header and `expected` bytes after it.
    private static func checkLength(_ data: Data, path: String, dimensions: Int, expected: Int, what: String) throws {
        let body = data.count - (4 + 4 * dimensions)
        if body < expected {
            throw CreateMLError(path, "truncated: \(grouped(body)) bytes after the header, expected \(grouped(expected)) for \(what)")
        }
        if body > expected {
            throw CreateMLError(path, "\(grouped(body - expected)) unexpected bytes after \(what)")
        }
    }

    private static func bigEndianUInt32(_ data: Data, at offset: Int) -> UInt32 {
        data.withUnsafeBytes { UInt32(bigEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }
}

extension LabeledDataset {
    /// The `split` images and labels of an MNIST-format folder, pixels multiplied by `scale`.
    static func idx(folder: String, split: Split, scale: Float = 1 / 255) throws -> LabeledDataset {
        try IDXFormat.load(folder: folder, split: split, scale: scale)
    }
}
