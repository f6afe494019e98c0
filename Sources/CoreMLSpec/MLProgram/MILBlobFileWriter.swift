import Foundation

/// Builds an ML Program weight file in memory, in the layout ``MILBlobFile`` reads: the 64-byte
/// header (blob count, format version 2), then for each blob its 64-byte metadata record at a
/// 64-byte boundary and its data right after it. Each blob's metadata offset is what the program's
/// blob file value names.
public struct MILBlobFileWriter: Sendable {
    /// The file's bytes so far.
    public private(set) var data: Data
    /// The number of blobs appended.
    public private(set) var count = 0

    public init() {
        data = Data(count: MILBlobFile.headerSize)
        Self.put(UInt32(0), at: 0, in: &data)
        Self.put(UInt32(2), at: 4, in: &data)
    }

    /// Appends a blob of `count` values of `dataType` stored in `bytes` (sub-byte types packed,
    /// the last byte's unused bits recorded).
    ///
    /// - Returns: the offset of its metadata record; nil, appending nothing, when `bytes` is not
    ///   the size `count` values of the type take.
    public mutating func append(_ dataType: MILBlobFile.DataType, count: Int, bytes: Data) -> UInt64? {
        guard let size = dataType.byteCount(for: count), size == bytes.count else { return nil }
        let offset = (data.count + 63) / 64 * 64
        data.append(Data(count: offset - data.count))
        var record = Data(count: MILBlobFile.recordSize)
        Self.put(MILBlobFile.sentinel, at: 0, in: &record)
        Self.put(dataType.rawValue, at: 4, in: &record)
        Self.put(UInt64(size), at: 8, in: &record)
        Self.put(UInt64(offset + MILBlobFile.recordSize), at: 16, in: &record)
        Self.put(UInt64(size * 8 - count * dataType.bits), at: 24, in: &record)
        data.append(record)
        data.append(bytes)
        self.count += 1
        Self.put(UInt32(self.count), at: 0, in: &data)
        return UInt64(offset)
    }

    private static func put<T: FixedWidthInteger>(_ value: T, at offset: Int, in data: inout Data) {
        withUnsafeBytes(of: value.littleEndian) { raw in
            for (index, byte) in raw.enumerated() { data[data.startIndex + offset + index] = byte }
        }
    }
}
