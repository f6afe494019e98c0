extension CSVReader {
    /// A tokenizer at the start of `bytes`, past a UTF-8 byte order mark and ``CSVOptions/skipRows``
    /// lines.
    package func tokenizer(_ bytes: UnsafeBufferPointer<UInt8>) -> Tokenizer {
        var tokenizer = Tokenizer(reader: self, bytes: bytes, position: 0)
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { tokenizer.position = 3 }
        for _ in 0..<options.skipRows where tokenizer.position < bytes.count { tokenizer.skipLine() }
        return tokenizer
    }

    /// A cursor over the file's bytes that cuts it into rows of field spans.
    package struct Tokenizer {
        package let reader: CSVReader
        package let bytes: UnsafeBufferPointer<UInt8>
        package var position: Int
        /// Names for fields by position, for error messages (empty while reading the header).
        package var columnNames: [String] = []

        package func columnName(_ index: Int) -> String {
            index < columnNames.count ? columnNames[index] : "field \(index + 1)"
        }

        func isSpace(_ b: UInt8) -> Bool { (b == 0x20 || b == 0x09) && b != reader.delimiter }

        /// Moves past the next terminator (or to the end).
        package mutating func skipLine() {
            while position < bytes.count, bytes[position] != reader.terminator { position += 1 }
            if position < bytes.count { position += 1 }
        }

        /// Moves past blank and comment lines, to where the next row starts (or to the end).
        package mutating func skipBlankLines() {
            while position < bytes.count, lineIsBlank() { skipLine() }
        }

        /// Whether the line at `position` holds nothing but spaces, or spaces and a comment.
        func lineIsBlank() -> Bool {
            var i = position
            while i < bytes.count {
                let b = bytes[i]
                if b == reader.terminator { return true }
                if let comment = reader.comment, b == comment { return true }
                if b == 0x0D && reader.dropsCarriageReturn { i += 1; continue }
                if !isSpace(b) { return false }
                i += 1
            }
            return true
        }

        /// Appends the next row's fields to `fields`; false at the end of the file. Blank and
        /// comment lines are skipped.
        package mutating func nextRow(into fields: inout [Span]) throws(FormatError) -> Bool {
            skipBlankLines()
            guard position < bytes.count else { return false }
            let first = fields.count
            let n = bytes.count
            let delimiter = reader.delimiter, terminator = reader.terminator
            let comment = reader.comment ?? delimiter
            while true {
                if reader.options.skipInitialSpaces {
                    while position < n, bytes[position] == 0x20, delimiter != 0x20 { position += 1 }
                }
                if let quote = reader.quote, position < n, bytes[position] == quote {
                    let open = position
                    position += 1
                    let start = position
                    var flags = Span.quoted
                    var end = -1
                    while position < n {
                        let b = bytes[position]
                        if let escape = reader.escape, b == escape {
                            flags |= Span.needsUnescaping
                            position += 2
                            continue
                        }
                        if b == quote {
                            if reader.doubleQuote, position + 1 < n, bytes[position + 1] == quote {
                                flags |= Span.needsUnescaping
                                position += 2
                                continue
                            }
                            end = position
                            position += 1
                            break
                        }
                        position += 1
                    }
                    guard end >= 0 else {
                        throw reader.error(bytes, at: open, column: columnName(fields.count - first),
                                           "the quoted field that starts here is never closed")
                    }
                    while position < n, bytes[position] == 0x20, delimiter != 0x20 { position += 1 }
                    fields.append(Span(start: start, end: end, flags: flags))
                } else {
                    let start = position
                    while position < n {
                        let b = bytes[position]
                        if b == delimiter || b == terminator || b == comment { break }
                        position += 1
                    }
                    var end = position
                    if reader.dropsCarriageReturn, end > start, bytes[end - 1] == 0x0D { end -= 1 }
                    fields.append(Span(start: start, end: end, flags: 0))
                }
                guard position < n else { return true }
                let b = bytes[position]
                if b == delimiter {
                    position += 1
                    continue
                }
                if b == terminator {
                    position += 1
                    return true
                }
                if reader.dropsCarriageReturn, b == 0x0D, position + 1 >= n || bytes[position + 1] == terminator {
                    position += 1
                    if position < n { position += 1 }
                    return true
                }
                if let c = reader.comment, b == c {
                    skipLine()
                    return true
                }
                throw reader.error(bytes, at: position, column: columnName(fields.count - first - 1),
                                   "unexpected text after the closing quote (expected a delimiter or the end of the line)")
            }
        }
    }
}
