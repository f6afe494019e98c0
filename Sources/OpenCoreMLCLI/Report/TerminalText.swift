extension String {
    /// The text with every character that could steer a terminal shown as an escape instead
    /// (`\u{1B}`): control characters (C0, DEL, C1), the bidirectional marks, overrides and isolates
    /// that reorder what follows them, and Unicode's line and paragraph separators. A model's strings — names, labels, metadata — are data and
    /// go through this before they reach a terminal. Newlines are kept when `keepingNewlines` is set
    /// (a model's description may span lines).
    func terminalEscaped(keepingNewlines: Bool = false) -> String {
        var result = ""
        result.reserveCapacity(utf8.count)
        for scalar in unicodeScalars {
            let value = scalar.value
            let isControl = value < 0x20 || (0x7F...0x9F).contains(value)
            let isBidi = (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value) || value == 0x200E || value == 0x200F
                || value == 0x061C || value == 0x2028 || value == 0x2029  // Arabic letter mark, line and paragraph separators
            if (isControl && !(keepingNewlines && scalar == "\n")) || isBidi {
                result += "\\u{" + String(value, radix: 16, uppercase: true) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
