/// Text from a model (feature names, descriptions, metadata) written into generated Swift source,
/// one function per place it can go. Whatever the text holds, it stays data: it cannot end the
/// comment or literal it is in, start a line of code, or hide in the source (line and paragraph
/// separators, control characters and the bidirectional controls of "Trojan Source" never appear
/// as such; they are spelled `\u{…}`, or, for line breaks in comments, become spaces).
enum SwiftSourceText {
    /// A string literal (`"…"`) whose value is `text`: `\`, `"`, control characters, line and
    /// paragraph separators and invisible format characters are escaped, so `\(…)`, `"""` and
    /// `#"` stay characters of the string.
    static func stringLiteral(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\0": result += "\\0"
            default:
                if needsEscape(scalar) { result += escaped(scalar) } else { result.unicodeScalars.append(scalar) }
            }
        }
        return result + "\""
    }

    /// The text of a `//` comment line: one line (line breaks become spaces), with hidden
    /// characters spelled out and `/*`, `*/` broken up so that no block comment starts or ends.
    static func lineComment(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        var previous: Unicode.Scalar?
        for scalar in text.unicodeScalars {
            if isLineBreak(scalar) {
                result.append(" ")
            } else if needsEscape(scalar) && !isJoiner(scalar) {
                result.append(contentsOf: escaped(scalar).unicodeScalars)
            } else {
                // "/*" and "*/" get a space between their characters.
                if (previous == "/" && scalar == "*") || (previous == "*" && scalar == "/") { result.append(" ") }
                result.append(scalar)
            }
            previous = result.last
        }
        return String(result)
    }

    /// The text of a `///` documentation comment line: a `//` comment's text (see `lineComment`).
    static func docComment(_ text: String) -> String {
        lineComment(text)
    }

    /// `text` as Markdown code in a documentation comment: in backticks (more of them than any run
    /// of backticks in it), made safe as `docComment` does.
    static func docCode(_ text: String) -> String {
        let line = docComment(text)
        var longest = 0, run = 0
        for character in line {
            run = character == "`" ? run + 1 : 0
            longest = max(longest, run)
        }
        let fence = String(repeating: "`", count: longest + 1)
        let padding = line.hasPrefix("`") || line.hasSuffix("`") ? " " : ""
        return fence + padding + line + padding + fence
    }

    /// Characters that end a line for some reader (Swift, an editor, a terminal, a diff viewer).
    static func isLineBreak(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029: return true
        default: return false
        }
    }

    /// Characters written as `\u{…}`: controls, line breaks, bidirectional controls and every
    /// other invisible format character (general categories Cc, Cf, Zl, Zp), and unassigned or
    /// private-use code points.
    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        if isLineBreak(scalar) { return true }
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .unassigned, .privateUse, .surrogate: return true
        default: return false
        }
    }

    /// The zero-width joiner and non-joiner: invisible, but part of emoji and of some scripts'
    /// spelling; a comment keeps them (they cannot end a line or reorder text).
    private static func isJoiner(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value == 0x200C || scalar.value == 0x200D
    }

    private static func escaped(_ scalar: Unicode.Scalar) -> String {
        "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
    }
}
