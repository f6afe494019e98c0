import Foundation

/// The one CSV reader (Create ML's `MLDataTable.ParsingOptions` semantics, see ``CSVOptions``),
/// over the bytes of a whole file. A tokenizer cuts the bytes into rows of field ``Span``s without
/// copying; the value functions turn one span into a missing marker, an integer, a double or
/// text. Three ways to use it: ``fields(_:)`` finds every field of the file at once, ``rows(_:)``
/// hands out the fields of a block of rows at a time (a table types its columns block by block),
/// or a ``Tokenizer`` hands out one row at a time (numeric
/// data sets parse each row as it comes, keeping no spans). Errors are ``FormatError``s naming the
/// file, the line (counted only when an error is reported) and the column.
package struct CSVReader {
    package let location: String
    package let options: CSVOptions
    let delimiter: UInt8
    let quote: UInt8?
    let escape: UInt8?
    let comment: UInt8?
    let terminator: UInt8
    /// Whether a carriage return before the terminator is dropped (terminator "\n" or "\r\n").
    let dropsCarriageReturn: Bool
    /// Whether two quotes in a row inside a quoted field stand for one.
    let doubleQuote: Bool
    let missingTokens: [[UInt8]]

    /// Where one field's text lies in the file.
    package struct Span: Sendable {
        package var start: Int
        package var end: Int
        /// `quoted` and `needsUnescaping` bits.
        package var flags: UInt8
        package static let quoted: UInt8 = 1
        package static let needsUnescaping: UInt8 = 2
        package var isQuoted: Bool { flags & Span.quoted != 0 }
    }

    package init(location: String, options: CSVOptions) throws(FormatError) {
        self.location = location
        self.options = options
        func character(_ text: String, _ name: String, allowEmpty: Bool) throws(FormatError) -> UInt8? {
            if text.isEmpty {
                if allowEmpty { return nil }
                throw FormatError(location, "the \(name) must be one character, got an empty string")
            }
            guard text.utf8.count == 1, let byte = text.utf8.first, byte < 0x80 else {
                throw FormatError(location, "the \(name) must be one ASCII character, got \(text.debugDescription) (longer ones are not supported)")
            }
            return byte
        }
        delimiter = try character(options.delimiter, "delimiter", allowEmpty: false)!
        quote = try character(options.quote, "quote", allowEmpty: true)
        let escapeCharacter = try character(options.escape, "escape", allowEmpty: true)
        // An escape character equal to the quote can only mean doubled quotes.
        escape = escapeCharacter == quote ? nil : escapeCharacter
        doubleQuote = options.doubleQuote || (escapeCharacter != nil && escapeCharacter == quote)
        comment = try character(options.comment, "comment", allowEmpty: true)
        switch options.lineTerminator {
        case "\n", "\r\n":
            terminator = UInt8(ascii: "\n")
            dropsCarriageReturn = true
        default:
            terminator = try character(options.lineTerminator, "line terminator", allowEmpty: false)!
            dropsCarriageReturn = false
        }
        guard delimiter != terminator, delimiter != quote, delimiter != comment else {
            throw FormatError(location, "the delimiter \(options.delimiter.debugDescription) is also the quote, comment or line terminator")
        }
        missingTokens = options.missingValues.filter { !$0.isEmpty }.map { Array($0.utf8) }
        if let negative = [options.skipRows, options.maxRows ?? 0].first(where: { $0 < 0 }) {
            throw FormatError(location, "skipRows and maxRows must not be negative, got \(negative)")
        }
    }

    // MARK: Errors

    /// The 1-based line holding byte `offset`.
    package func line(at offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var lines = 1
        for i in 0..<Swift.min(offset, bytes.count) where bytes[i] == terminator { lines += 1 }
        return lines
    }

    /// An error at byte `offset`, naming its line and, when given, the column: `file: line 4, column "ax"`.
    package func error(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int, column: String?, _ message: String) -> FormatError {
        let columnPart = column.map { ", column \"\($0)\"" } ?? ""
        return FormatError("\(location): line \(line(at: offset, in: bytes))\(columnPart)", message)
    }
}
