/// What may be a Swift identifier, per the lexical grammar of The Swift Programming Language
/// (identifier-head, identifier-character, keywords), narrowed to what is also visible and
/// unambiguous in source: only letters (and `_`) start an identifier; letters, digits and
/// non-enclosing combining marks continue it. Format characters the grammar allows (zero-width
/// spaces and joiners, the bidirectional embeddings, overrides and isolates), symbols and emoji are
/// never part of a generated identifier.
enum SwiftIdentifier {
    /// The words the grammar reserves, plus the contextual keywords: every one of them is written
    /// in backticks when it names a generated property or parameter (`` `class` ``, `` `Type` ``).
    static let keywords: Set<String> = [
        // Declarations.
        "associatedtype", "borrowing", "class", "consuming", "deinit", "enum", "extension", "fileprivate", "func", "import",
        "init", "inout", "internal", "let", "nonisolated", "open", "operator", "precedencegroup", "private", "protocol",
        "public", "rethrows", "static", "struct", "subscript", "typealias", "var",
        // Statements.
        "break", "case", "catch", "continue", "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in",
        "repeat", "return", "throw", "switch", "where", "while",
        // Expressions and types.
        "Any", "as", "await", "false", "is", "nil", "self", "Self", "super", "throws", "true", "try", "_",
        // Contextual keywords.
        "associativity", "async", "convenience", "didSet", "dynamic", "final", "get", "indirect", "infix", "lazy", "left",
        "mutating", "none", "nonmutating", "optional", "override", "package", "postfix", "precedence", "prefix", "Protocol",
        "required", "right", "set", "some", "Type", "unowned", "weak", "willSet", "any", "each", "consume", "copy",
        "discard", "macro", "actor", "isolated", "sending", "then", "yield",
    ]

    /// Keywords that do not work as a member name even in backticks (`` self.`self` `` is the
    /// instance itself): a feature of such a name gets a different identifier.
    static let unusableMemberNames: Set<String> = ["self"]

    /// Whether `name` is an identifier (keywords included: they need backticks, see `spelling(of:)`).
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, isHead(first) else { return false }
        return name.unicodeScalars.dropFirst().allSatisfy(isCharacter)
    }

    /// `name` as a plain identifier: each scalar that cannot be where it is becomes `_` (a leading
    /// digit or combining mark keeps its place behind a `_`). Empty when `name` is.
    static func sanitized(_ name: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in name.unicodeScalars {
            if result.isEmpty {
                if isHead(scalar) {
                    result.append(scalar)
                } else {
                    result.append("_")
                    if isCharacter(scalar) { result.append(scalar) }
                }
            } else {
                result.append(isCharacter(scalar) ? scalar : "_")
            }
        }
        return String(result)
    }

    /// How the identifier `name` is written where a property or parameter name goes: in backticks
    /// when it is a keyword.
    static func spelling(of name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    /// identifier-head: `_`, letters.
    static func isHead(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return scalar == "_" || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) }
        guard inGrammarHeadRanges(scalar.value) else { return false }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .letterNumber: return true
        default: return false
        }
    }

    /// identifier-character: a head, a digit or a (non-enclosing) combining mark.
    static func isCharacter(_ scalar: Unicode.Scalar) -> Bool {
        if isHead(scalar) { return true }
        if scalar.isASCII { return ("0"..."9").contains(scalar) }
        guard inGrammarHeadRanges(scalar.value) || inGrammarCharacterRanges(scalar.value) else { return false }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .decimalNumber, .otherNumber: return true
        default: return false
        }
    }

    /// The non-ASCII ranges of the grammar's identifier-head.
    private static func inGrammarHeadRanges(_ value: UInt32) -> Bool {
        if value >= 0x10000 { return value & 0xFFFF <= 0xFFFD && value <= 0xEFFFD }
        return headRanges.contains { $0.contains(value) }
    }

    /// The grammar's identifier-head ranges below U+10000 (made once, not per character).
    private static let headRanges: [ClosedRange<UInt32>] = [
        0xA8...0xA8, 0xAA...0xAA, 0xAD...0xAD, 0xAF...0xAF, 0xB2...0xB5, 0xB7...0xBA, 0xBC...0xBE, 0xC0...0xD6,
        0xD8...0xF6, 0xF8...0xFF, 0x100...0x2FF, 0x370...0x167F, 0x1681...0x180D, 0x180F...0x1DBF, 0x1E00...0x1FFF,
        0x200B...0x200D, 0x202A...0x202E, 0x203F...0x2040, 0x2054...0x2054, 0x2060...0x206F, 0x2070...0x20CF,
        0x2100...0x218F, 0x2460...0x24FF, 0x2776...0x2793, 0x2C00...0x2DFF, 0x2E80...0x2FFF, 0x3004...0x3007,
        0x3021...0x302F, 0x3031...0x303F, 0x3040...0xD7FF, 0xF900...0xFD3D, 0xFD40...0xFDCF, 0xFDF0...0xFE1F,
        0xFE30...0xFE44, 0xFE47...0xFFFD,
    ]

    /// The ranges the grammar's identifier-character adds to identifier-head (combining marks).
    private static func inGrammarCharacterRanges(_ value: UInt32) -> Bool {
        (0x300...0x36F).contains(value) || (0x1DC0...0x1DFF).contains(value) || (0x20D0...0x20FF).contains(value)
            || (0xFE20...0xFE2F).contains(value)
    }
}
