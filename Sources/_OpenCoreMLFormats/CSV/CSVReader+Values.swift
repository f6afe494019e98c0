extension CSVReader {
    package func isMissing(_ span: Span, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if span.isQuoted { return false }
        let length = span.end - span.start
        if length == 0 { return true }
        for token in missingTokens where token.count == length {
            var same = true
            for i in 0..<length where bytes[span.start + i] != token[i] {
                same = false
                break
            }
            if same { return true }
        }
        return false
    }

    /// The field's bytes without surrounding spaces, for number parsing.
    package func trimmed(_ span: Span, _ bytes: UnsafeBufferPointer<UInt8>) -> Range<Int> {
        var s = span.start, e = span.end
        while s < e, bytes[s] == 0x20 || bytes[s] == 0x09 { s += 1 }
        while e > s, bytes[e - 1] == 0x20 || bytes[e - 1] == 0x09 { e -= 1 }
        return s..<e
    }

    package func parseInt(_ span: Span, _ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        if span.flags & Span.needsUnescaping != 0 { return nil }
        let r = trimmed(span, bytes)
        var i = r.lowerBound
        guard i < r.upperBound else { return nil }
        var negative = false
        if bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") {
            negative = bytes[i] == UInt8(ascii: "-")
            i += 1
        }
        guard i < r.upperBound else { return nil }
        var value = 0
        while i < r.upperBound {
            let d = Int(bytes[i]) &- 48
            guard d >= 0, d <= 9 else { return nil }
            let m = value.multipliedReportingOverflow(by: 10)
            let a = negative ? m.partialValue.subtractingReportingOverflow(d) : m.partialValue.addingReportingOverflow(d)
            if m.overflow || a.overflow { return nil }
            value = a.partialValue
            i += 1
        }
        return value
    }

    package func parseDouble(_ span: Span, _ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        if span.flags & Span.needsUnescaping != 0 { return nil }
        let r = trimmed(span, bytes)
        guard !r.isEmpty, r.count < 400, Self.looksLikeDouble(bytes, r) else { return nil }
        return Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[r]), as: UTF8.self))
    }

    /// Whether the bytes are a decimal number (`-1.5e3`, `.5`, `3.`) or `nan`/`inf`/`infinity` in
    /// any case: no hexadecimal, no other text.
    package static func looksLikeDouble(_ bytes: UnsafeBufferPointer<UInt8>, _ r: Range<Int>) -> Bool {
        var i = r.lowerBound
        if bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") { i += 1 }
        let rest = r.upperBound - i
        if rest == 3 || rest == 8 {
            let word = String(decoding: UnsafeBufferPointer(rebasing: bytes[i..<r.upperBound]), as: UTF8.self).lowercased()
            if word == "nan" || word == "inf" || word == "infinity" { return true }
        }
        func isDigit(_ j: Int) -> Bool { j < r.upperBound && bytes[j] >= 48 && bytes[j] <= 57 }
        var digits = 0
        while isDigit(i) { i += 1; digits += 1 }
        if i < r.upperBound, bytes[i] == UInt8(ascii: ".") {
            i += 1
            while isDigit(i) { i += 1; digits += 1 }
        }
        guard digits > 0 else { return false }
        if i < r.upperBound, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < r.upperBound, bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") { i += 1 }
            guard isDigit(i) else { return false }
            while isDigit(i) { i += 1 }
        }
        return i == r.upperBound
    }

    /// The field's text: unescaped when needed, validated as UTF-8 (nil when it is not).
    package func text(_ span: Span, in bytes: UnsafeBufferPointer<UInt8>) throws(InvalidText) -> String {
        if span.flags & Span.needsUnescaping == 0 {
            guard let s = UTF8Text.decode(UnsafeBufferPointer(rebasing: bytes[span.start..<span.end])) else { throw InvalidText() }
            return s
        }
        var out: [UInt8] = []
        out.reserveCapacity(span.end - span.start)
        var i = span.start
        while i < span.end {
            let b = bytes[i]
            if let escape, b == escape, i + 1 < span.end {
                let next = bytes[i + 1]
                switch next {
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "0"): out.append(0x00)
                default: out.append(next)
                }
                i += 2
            } else if let quote, b == quote, doubleQuote, i + 1 < span.end, bytes[i + 1] == quote {
                out.append(quote)
                i += 2
            } else {
                out.append(b)
                i += 1
            }
        }
        guard let s = out.withUnsafeBufferPointer({ UTF8Text.decode($0) }) else { throw InvalidText() }
        return s
    }

    /// The field's bytes are not valid UTF-8.
    package struct InvalidText: Error {}
}
