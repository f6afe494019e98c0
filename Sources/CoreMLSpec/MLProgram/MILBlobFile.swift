import Foundation

/// An ML Program's weight file (`weights/weight.bin`), memory-mapped and read with every offset
/// and size checked against the file.
///
/// Layout (little-endian): a 64-byte header (blob count: UInt32, format version: UInt32 = 2,
/// reserved); then for each blob a 64-byte metadata record — sentinel 0xDEADBEEF (UInt32), data
/// type (UInt32), size in bytes, data offset and unused trailing bits (UInt64 each), reserved —
/// and the blob's data at its offset; records and data start on 64-byte boundaries. A blob file
/// value in the program points at a metadata record. Sub-byte types are packed LSB-first; the
/// trailing bits say how many bits of the last byte are unused.
public struct MILBlobFile: Sendable {
    /// The data types a blob can hold, by their code in the file.
    public enum DataType: UInt32, Sendable, CaseIterable {
        case float16 = 1, float32 = 2, uint8 = 3, int8 = 4, bfloat16 = 5, int16 = 6, uint16 = 7, int4 = 8
        case uint1 = 9, uint2 = 10, uint4 = 11, uint3 = 12, uint6 = 13, int32 = 14, uint32 = 15
        case float8E4M3FN = 16, float8E5M2 = 17

        /// Bits per value.
        public var bits: Int {
            switch self {
            case .float32, .int32, .uint32: return 32
            case .float16, .bfloat16, .int16, .uint16: return 16
            case .uint8, .int8, .float8E4M3FN, .float8E5M2: return 8
            case .uint6: return 6
            case .int4, .uint4: return 4
            case .uint3: return 3
            case .uint2: return 2
            case .uint1: return 1
            }
        }
    }

    /// One blob: where its record is, its type and its bytes.
    public struct Blob: Sendable {
        /// The offset of its metadata record (what a blob file value names).
        public var metadataOffset: UInt64
        public var dataType: DataType
        /// The data's bytes (a slice of the mapped file).
        public var data: Data
        /// Unused bits at the end of the last byte (sub-byte types).
        public var paddingBits: UInt64

        /// The number of values the data holds.
        public var count: Int { (data.count * 8 - Int(paddingBits)) / dataType.bits }
    }

    public static let headerSize = 64
    public static let recordSize = 64
    public static let sentinel: UInt32 = 0xDEAD_BEEF

    /// The file.
    public let url: URL
    /// The blob count the header states.
    public let count: Int
    private let bytes: Data

    /// Maps the file and checks its header.
    ///
    /// - Throws: ``ModelFileError`` naming the file when it is missing, shorter than its header,
    ///   or of a format version other than 2.
    public init(contentsOf url: URL) throws {
        self.url = url
        do {
            bytes = try Data(contentsOf: url, options: .alwaysMapped)
        } catch {
            throw ModelFileError(.notFound, path: url.path, reason: "the weight file could not be read (\((error as NSError).localizedDescription))")
        }
        guard bytes.count >= Self.headerSize else {
            throw ModelFileError(.corrupt, path: url.path, reason: "\(bytes.count) bytes: shorter than the 64-byte header")
        }
        let version = Self.uint32(bytes, at: 4)
        guard version == 2 else {
            throw ModelFileError(.corrupt, path: url.path, reason: "weight file format version \(version); OpenCoreML reads version 2")
        }
        count = Int(Self.uint32(bytes, at: 0))
    }

    /// The blob whose metadata record is at `offset`.
    ///
    /// - Throws: ``ModelFileError`` naming the file and offset when the record or the data would
    ///   lie outside the file, the sentinel is wrong, the type unknown, or the size does not fit.
    public func blob(at offset: UInt64) throws -> Blob {
        func fail(_ reason: String) -> ModelFileError {
            ModelFileError(.corrupt, path: url.path, reason: "blob at offset \(offset): \(reason)")
        }
        guard offset >= UInt64(Self.headerSize), offset % 64 == 0 else { throw fail("not a 64-byte aligned record after the header") }
        guard offset <= UInt64(bytes.count), UInt64(bytes.count) - offset >= UInt64(Self.recordSize) else {
            throw fail("the record lies past the end of the file (\(bytes.count) bytes)")
        }
        let at = Int(offset)
        guard Self.uint32(bytes, at: at) == Self.sentinel else { throw fail("no metadata record here (sentinel missing)") }
        let code = Self.uint32(bytes, at: at + 4)
        guard let dataType = DataType(rawValue: code) else { throw fail("unknown data type code \(code)") }
        let size = Self.uint64(bytes, at: at + 8), dataOffset = Self.uint64(bytes, at: at + 16)
        let paddingBits = Self.uint64(bytes, at: at + 24)
        guard dataOffset <= UInt64(bytes.count), size <= UInt64(bytes.count) - dataOffset else {
            throw fail("its \(size) bytes at offset \(dataOffset) lie past the end of the file (\(bytes.count) bytes)")
        }
        guard paddingBits < 8, size > 0 || paddingBits == 0, (size * 8 - paddingBits) % UInt64(dataType.bits) == 0 else {
            throw fail("\(size) bytes less \(paddingBits) bits are not a whole number of \(dataType) values")
        }
        let start = bytes.startIndex + Int(dataOffset)
        return Blob(metadataOffset: offset, dataType: dataType, data: bytes[start..<(start + Int(size))], paddingBits: paddingBits)
    }

    /// Every blob, in file order (each record follows the previous blob's data, 64-byte aligned).
    public func blobs() throws -> [Blob] {
        var result: [Blob] = []
        var offset = UInt64(Self.headerSize)
        for _ in 0..<count {
            let blob = try blob(at: offset)
            result.append(blob)
            let end = UInt64(blob.data.startIndex - bytes.startIndex) + UInt64(blob.data.count)
            offset = (end + 63) / 64 * 64
        }
        return result
    }

    private static func uint32(_ data: Data, at offset: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(data[data.startIndex + offset + $1]) << (8 * $1) }
    }

    private static func uint64(_ data: Data, at offset: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 | UInt64(data[data.startIndex + offset + $1]) << (8 * $1) }
    }
}
