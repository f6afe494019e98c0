import _OpenCoreMLFormats

extension CSVReader {
    /// ``parseDouble(_:_:)``'s value, to the bit, without making a `String` for the common field:
    /// a plain decimal of at most 19 significant digits whose value is exactly a small integer times
    /// or over a power of ten (``CSVDecimal``). Anything else — more digits, larger exponents,
    /// `nan`, escapes, text — goes through ``parseDouble(_:_:)`` as before.
    @inline(__always)
    func fastDouble(_ span: Span, _ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        if span.flags & Span.needsUnescaping == 0, let base = bytes.baseAddress {
            // `trimmed(_:_:)`, here where it can be inlined: without the spaces and tabs around.
            var start = span.start, end = span.end
            while start < end, base[start] == 0x20 || base[start] == 0x09 { start += 1 }
            while end > start, base[end - 1] == 0x20 || base[end - 1] == 0x09 { end -= 1 }
            if end - start < 400, let value = CSVDecimal.parse(base + start, count: end - start) {
                return value
            }
        }
        return parseDouble(span, bytes)
    }
}

/// Decimal text to a double by Clinger's fast path: when the digits, read as an integer `m`, are at
/// most 2^53 (so `m` is a double exactly) and the decimal exponent `e` is within ±22 (so 10^|e| is
/// one exactly), `m · 10^e` or `m / 10^−e` is a single correctly rounded operation — the double
/// nearest the decimal, which is what `strtod` returns (and Swift's `Double(String)`, which calls it).
/// Other text returns nil, for the full conversion: it never guesses.
enum CSVDecimal {
    /// 10^0 … 10^22, each exactly a double.
    static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
        1e20, 1e21, 1e22,
    ]

    /// The value of `count` bytes of the form `[+-]digits[.digits][(e|E)[+-]digits]` (at least one
    /// digit before the exponent), or nil when they are not of that form or the fast path does not apply.
    @inline(__always)
    static func parse(_ text: UnsafePointer<UInt8>, count: Int) -> Double? {
        var i = 0
        guard count > 0 else { return nil }
        var negative = false
        if text[0] == UInt8(ascii: "-") || text[0] == UInt8(ascii: "+") {
            negative = text[0] == UInt8(ascii: "-")
            i = 1
        }
        // The digits as one integer: leading zeros skipped, then at most 19 significant digits
        // (more return nil, so `mantissa` never overflows in a value that is used).
        var mantissa: UInt64 = 0
        let integerStart = i
        while i < count, text[i] == UInt8(ascii: "0") { i += 1 }
        let integerSignificantStart = i
        i = digits(text, from: i, count: count, into: &mantissa)
        var significant = i - integerSignificantStart
        var anyDigit = i > integerStart
        var fractionDigits = 0
        if i < count, text[i] == UInt8(ascii: ".") {
            i += 1
            let fractionStart = i
            if mantissa == 0 {
                while i < count, text[i] == UInt8(ascii: "0") { i += 1 }
            }
            let fractionSignificantStart = i
            i = digits(text, from: i, count: count, into: &mantissa)
            significant += i - fractionSignificantStart
            fractionDigits = i - fractionStart
            anyDigit = anyDigit || fractionDigits > 0
        }
        guard anyDigit, significant <= 19 else { return nil }
        var exponent = 0
        if i < count, text[i] == UInt8(ascii: "e") || text[i] == UInt8(ascii: "E") {
            i += 1
            var negativeExponent = false
            if i < count, text[i] == UInt8(ascii: "-") || text[i] == UInt8(ascii: "+") {
                negativeExponent = text[i] == UInt8(ascii: "-")
                i += 1
            }
            guard i < count, text[i] &- 48 < 10 else { return nil }
            while i < count {
                let d = text[i] &- 48
                guard d < 10 else { break }
                exponent = exponent * 10 + Int(d)
                if exponent > 100_000 { return nil }
                i += 1
            }
            if negativeExponent { exponent = -exponent }
        }
        guard i == count, mantissa <= 1 << 53 else { return nil }
        let power = exponent - fractionDigits
        var value = Double(mantissa)
        if mantissa != 0 {
            if power >= 0 {
                guard power <= 22 else { return nil }
                value *= powersOfTen[power]
            } else {
                guard power >= -22 else { return nil }
                value /= powersOfTen[-power]
            }
        }
        return negative ? -value : value
    }

    /// Appends the decimal digits from `i` to `mantissa` (wrapping: the caller rejects more than 19
    /// significant ones), eight at a time where eight bytes are digits; returns where they end.
    @inline(__always)
    static func digits(_ text: UnsafePointer<UInt8>, from start: Int, count: Int, into mantissa: inout UInt64) -> Int {
        var i = start
        while i + 8 <= count {
            let chunk = UnsafeRawPointer(text + i).loadUnaligned(as: UInt64.self).littleEndian
            // Every byte a digit: its high nibble 3 and its value below 10.
            let low = chunk &- 0x3030_3030_3030_3030
            guard (chunk & 0xF0F0_F0F0_F0F0_F0F0) == 0x3030_3030_3030_3030,
                  ((low &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0) == 0 else { break }
            // Eight digits (the first in the lowest byte) to their value: pairs, then fours, then all.
            var v = (low &* (10 << 8 + 1)) >> 8
            v = ((v & 0x00FF_00FF_00FF_00FF) &* (100 << 16 + 1)) >> 16
            v = ((v & 0x0000_FFFF_0000_FFFF) &* (10_000 << 32 + 1)) >> 32
            mantissa = mantissa &* 100_000_000 &+ v
            i += 8
        }
        while i < count {
            let d = text[i] &- 48
            guard d < 10 else { break }
            mantissa = mantissa &* 10 &+ UInt64(d)
            i += 1
        }
        return i
    }
}
