import CZlib
import Foundation
import Testing

// Shared helpers for the data tests of several test targets.

/// The error `body` throws, as its one-line message; records an issue when it does not throw.
public func errorMessage(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) -> String {
    do {
        try body()
    } catch {
        return "\(error)"
    }
    Issue.record("expected an error", sourceLocation: sourceLocation)
    return ""
}

/// Checks that `message` contains every piece.
public func expectMessage(_ message: String, contains pieces: [String], sourceLocation: SourceLocation = #_sourceLocation) {
    for piece in pieces {
        #expect(message.contains(piece), "'\(message)' lacks '\(piece)'", sourceLocation: sourceLocation)
    }
}

/// Writes `data` gzip-compressed to `url` with zlib's own gzip writer.
public func writeGzip(_ data: Data, to url: URL) throws {
    guard let file = gzopen(url.path, "wb") else { throw CocoaError(.fileWriteUnknown) }
    let written = data.withUnsafeBytes { gzwrite(file, $0.baseAddress, UInt32($0.count)) }
    #expect(gzclose(file) == Z_OK)
    #expect(Int(written) == data.count)
}

/// A big-endian 32-bit integer, byte by byte.
public func bigEndianBytes(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
}

/// An IDX images file: magic, count, rows, columns, pixels.
public func idxImages(_ pixels: [UInt8], count: Int, rows: Int, columns: Int, magic: UInt32 = 0x0000_0803) -> Data {
    Data(bigEndianBytes(magic) + bigEndianBytes(UInt32(count)) + bigEndianBytes(UInt32(rows)) + bigEndianBytes(UInt32(columns)) + pixels)
}

/// An IDX labels file: magic, count, labels.
public func idxLabels(_ labels: [UInt8], count: Int? = nil, magic: UInt32 = 0x0000_0801) -> Data {
    Data(bigEndianBytes(magic) + bigEndianBytes(UInt32(count ?? labels.count)) + labels)
}

