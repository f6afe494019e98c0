import Foundation
import Testing
@testable import _OpenCoreMLFormats

/// The one CSV reader: fields, quoting, every parsing option, and errors that name line and column.
struct CSVReaderTests {
    /// The rows of `text` as strings (missing fields as nil), read with `options`.
    private func rows(_ text: String, _ options: CSVOptions = CSVOptions()) throws -> (names: [String], rows: [[String?]]) {
        let reader = try CSVReader(location: "t.csv", options: options)
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { buffer in
            let fields = try reader.fields(buffer)
            let width = fields.selected.count
            let rows = (0..<fields.rowCount).map { r in
                (0..<width).map { c -> String? in
                    let span = fields.spans[r * width + c]
                    return reader.isMissing(span, buffer) ? nil : try? reader.text(span, in: buffer)
                }
            }
            return (fields.selected.map { fields.names[$0] }, rows)
        }
    }

    private func failure(_ text: String, _ options: CSVOptions = CSVOptions()) -> String {
        do {
            _ = try rows(text, options)
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    @Test func quotedFieldsHoldDelimitersLineBreaksDoubledAndEscapedQuotes() throws {
        let read = try rows("a,b\n\"x, y\",\"line\nbreak\"\n\"say \"\"hi\"\"\",\"tab\\there \\\"q\\\"\"\n")
        #expect(read.names == ["a", "b"])
        #expect(read.rows == [["x, y", "line\nbreak"], ["say \"hi\"", "tab\there \"q\""]])
    }

    @Test func missingValuesAreEmptyOrListedUnquotedTexts() throws {
        let read = try rows("a,b,c\nNA,,\"NA\"\n?,1,\"\"\n", CSVOptions(missingValues: ["NA", "?"]))
        #expect(read.rows == [[nil, nil, "NA"], [nil, "1", ""]])
    }

    @Test func everyParsingOptionIsHonoured() throws {
        // skipRows, a ';' delimiter, '#' comments, CRLF line ends, spaces after delimiters.
        let text = "junk line\n# comment\nk; v\r\n1;  two # trailing\r\n\r\n3; four\r\n"
        let read = try rows(text, CSVOptions(delimiter: ";", comment: "#", skipRows: 1))
        #expect(read.names == ["k", "v"])
        #expect(read.rows == [["1", "two "], ["3", "four"]])
        // Spaces kept when skipInitialSpaces is off.
        #expect(try rows("a,b\n1, 2\n", CSVOptions(skipInitialSpaces: false)).rows == [["1", " 2"]])
        // No header: X1, X2; maxRows; selectColumns keeps file order.
        let noHeader = try rows("1,2,3\n4,5,6\n7,8,9\n", CSVOptions(containsHeader: false, selectColumns: ["X3", "X1"], maxRows: 2))
        #expect(noHeader.names == ["X1", "X3"] && noHeader.rows == [["1", "3"], ["4", "6"]])
        // A one-character line terminator; quoting off; escapes off; doubled quotes off.
        #expect(try rows("a|b;1|\"x\";", CSVOptions(delimiter: "|", quote: "", lineTerminator: ";")).rows == [["1", "\"x\""]])
        #expect(try rows("a\n\"p\\q\"\n", CSVOptions(escape: "")).rows == [["p\\q"]])
        #expect(failure("a,b\n\"x\"\"y\",1\n", CSVOptions(doubleQuote: false)).contains("unexpected text after the closing quote"))
        // A byte order mark is skipped.
        #expect(try rows("\u{FEFF}k\n1\n").names == ["k"])
    }

    @Test func errorsNameTheFileLineAndColumn() {
        #expect(failure("a,b,c\n1,2,3\n4,5\n") == "t.csv: line 3, column \"c\": expected 3 fields, found 2")
        #expect(failure("a,b\n1,2\n\n1,2,3\n") == "t.csv: line 4: expected 2 fields, found 3")
        #expect(failure("a,b\n1,\"open\n\n") == "t.csv: line 2, column \"b\": the quoted field that starts here is never closed")
        #expect(failure("a,a\n") == "t.csv: line 1, column \"a\": duplicate column name (columns 1 and 2 are both named \"a\")")
        #expect(failure("") == "t.csv: the file is empty: it has no header and no rows")
        #expect(failure("a\n1\n", CSVOptions(selectColumns: ["b"])).contains("selectColumns names \"b\""))
        #expect(failure("a\n", CSVOptions(delimiter: ";;")).contains("the delimiter must be one ASCII character"))
        #expect(failure("a\n", CSVOptions(quote: ",")).contains("is also the quote"))
        #expect(failure("a\n", CSVOptions(skipRows: -1)).contains("must not be negative"))
    }

    @Test func numbersAreClassifiedWithoutTrapping() throws {
        let reader = try CSVReader(location: "n.csv", options: CSVReader.numericOptions)
        let text = "12, -3.5e2 ,\t.5,3.,nan,1e999,0x10,,abc,+7"
        let bytes = Array(text.utf8)
        try bytes.withUnsafeBufferPointer { buffer throws in
            var tokenizer = reader.tokenizer(buffer)
            var row: [CSVReader.Span] = []
            #expect(try tokenizer.nextRow(into: &row))
            let numbers = row.map { reader.number($0, buffer) }
            #expect(numbers == [.value(12), .value(-350), .value(0.5), .value(3), .notFinite, .notFinite, .notANumber, .empty, .notANumber, .value(7)])
            #expect(throws: FormatError("n.csv", "line 1, column 9: 'abc' is not a number")) {
                try reader.finiteNumber(row[8], buffer, rowStart: 0, column: 9)
            }
            #expect(try !tokenizer.nextRow(into: &row))
        }
    }

    /// The line of an error is counted from the bytes only when the error is reported; it must
    /// match counting by hand across quoted line breaks and blank lines.
    @Test func lineNumbersCountQuotedLineBreaks() throws {
        #expect(failure("a,b\n\"1\n2\",3\n\n4,5,6\n") == "t.csv: line 5: expected 2 fields, found 3")
    }
}
