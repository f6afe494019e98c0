/// Text fields of files: bytes that must be valid UTF-8.
package enum UTF8Text {
    /// The bytes as a string, or nil when they are not valid UTF-8.
    package static func decode(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let s = String(decoding: bytes, as: UTF8.self)
        for b in bytes where b >= 0x80 {
            // Decoding replaced invalid sequences with U+FFFD; the text then differs from the bytes.
            return s.utf8.elementsEqual(bytes) ? s : nil
        }
        return s
    }
}
