import CZlib
import Foundation

/// gzip data: recognised by its first two bytes (1f 8b), whatever the file is called, and inflated with
/// zlib one chunk at a time.
enum Gzip {
    /// Whether `data` starts with gzip's magic bytes.
    static func isCompressed(_ data: Data) -> Bool {
        data.count >= 2 && data[data.startIndex] == 0x1f && data[data.startIndex + 1] == 0x8b
    }

    /// The uncompressed bytes of every gzip member in `data`; errors name `path`.
    static func decompress(_ data: Data, path: String) throws -> Data {
        var stream = z_stream()
        guard inflateInit2_(&stream, 16 + MAX_WBITS, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw CreateMLError(path, "zlib could not start inflating")
        }
        defer { inflateEnd(&stream) }

        var output = Data()
        // gzip's trailer holds the uncompressed size modulo 2³²: a good first guess for the capacity,
        // but only a guess from the file. Deflate expands at most about 1032 times, so a claim beyond
        // that is a lie (a 20-byte file claiming 2 GB), and the output grows as it is written instead.
        if data.count >= 18 {
            let tail = data.suffix(4).reversed().reduce(0) { $0 << 8 | Int($1) }
            output.reserveCapacity(min(tail, data.count.multipliedReportingOverflow(by: 1032).partialValue, 1 << 31))
        }
        let chunkSize = 1 << 20
        let chunk = UnsafeMutablePointer<UInt8>.allocate(capacity: chunkSize)
        defer { chunk.deallocate() }

        try data.withUnsafeBytes { (input: UnsafeRawBufferPointer) in
            guard let base = input.bindMemory(to: UInt8.self).baseAddress else { return }
            var fed = 0  // bytes of `input` handed to zlib so far
            while true {
                if stream.avail_in == 0 && fed < input.count {
                    let count = min(1 << 30, input.count - fed)
                    stream.next_in = UnsafeMutablePointer(mutating: base + fed)
                    stream.avail_in = UInt32(count)
                    fed += count
                }
                stream.next_out = chunk
                stream.avail_out = UInt32(chunkSize)
                let status = inflate(&stream, Z_NO_FLUSH)
                output.append(chunk, count: chunkSize - Int(stream.avail_out))
                switch status {
                case Z_OK:
                    continue
                case Z_STREAM_END:
                    let consumed = fed - Int(stream.avail_in)
                    let rest = UnsafeRawBufferPointer(rebasing: input[consumed...])
                    if rest.isEmpty || rest.allSatisfy({ $0 == 0 }) { return }
                    guard rest.count >= 2 && rest[0] == 0x1f && rest[1] == 0x8b else {
                        throw CreateMLError(path, "\(rest.count) unexpected bytes after the gzip data")
                    }
                    inflateReset(&stream)  // another gzip member follows
                case Z_BUF_ERROR where stream.avail_in == 0 && fed == input.count:
                    throw CreateMLError(path, "truncated gzip data (the compressed stream ends early)")
                case Z_BUF_ERROR:
                    continue
                case Z_MEM_ERROR:
                    throw CreateMLError(path, "out of memory while inflating gzip data")
                default:
                    let reason = stream.msg.map { String(cString: $0) } ?? "status \(status)"
                    throw CreateMLError(path, "corrupt gzip data (\(reason))")
                }
            }
        }
        return output
    }
}
