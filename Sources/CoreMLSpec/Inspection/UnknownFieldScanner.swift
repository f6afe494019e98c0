import Foundation

/// Reads the field numbers out of protobuf bytes that the schema did not model.
///
/// swift-protobuf keeps such fields as raw bytes; naming their numbers lets errors and `inspect`
/// say *which* Core ML feature a file uses that OpenCoreML does not model.
enum UnknownFieldScanner {
    /// The top-level field numbers in `data`, in order; stops quietly at malformed bytes.
    static func fieldNumbers(in data: Data) -> [Int] {
        var numbers: [Int] = []
        var bytes = data[...]
        while !bytes.isEmpty {
            guard let key = readVarint(&bytes) else { break }
            let number = Int(key >> 3)
            switch key & 7 {
            case 0: guard readVarint(&bytes) != nil else { return numbers }
            case 1: guard bytes.count >= 8 else { return numbers }; bytes = bytes.dropFirst(8)
            case 2:
                guard let length = readVarint(&bytes), length <= UInt64(bytes.count) else { return numbers }
                bytes = bytes.dropFirst(Int(length))
            case 5: guard bytes.count >= 4 else { return numbers }; bytes = bytes.dropFirst(4)
            default: return numbers
            }
            numbers.append(number)
        }
        return numbers
    }

    private static func readVarint(_ bytes: inout Data.SubSequence) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while let byte = bytes.first, shift < 64 {
            bytes = bytes.dropFirst()
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
        return nil
    }
}
