import Foundation
@testable import OpenCreateML
import Testing
import _OpenCoreMLFormats
import _OpenCoreMLTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The streaming CSV reader (a small buffer, columns parsed in parallel) against the whole-file
/// reader, and the decimal parser against `strtod`.
@Suite struct DataTableCSVStreamTests {
    /// The whole-file reader's table of `text`.
    func whole(_ text: String, options: MLDataTable.ParsingOptions = .init()) throws -> MLDataTable {
        let reader = try CreateMLError.reading { try CSVReader(location: "s.csv", options: options.csvOptions) }
        return try Array(text.utf8).withUnsafeBufferPointer { try reader.table($0, columnTypes: options.columnTypes) }
    }

    /// The streaming reader's table of `text` written to a file, read `chunk` bytes at a time in
    /// blocks of at most `spans` fields (nil: it left the file to the whole-file reader).
    func streamed(_ text: String, chunk: Int, spans: Int = 1 << 20, options: MLDataTable.ParsingOptions = .init()) throws -> MLDataTable? {
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("s.csv")
            try Data(text.utf8).write(to: url)
            let reader = try CreateMLError.reading { try CSVReader(location: url.path, options: options.csvOptions) }
            return CSVStreamReader(path: url.path, reader: reader, columnTypes: options.columnTypes, chunkBytes: chunk,
                                   blockSpans: spans).read()
        }
    }

    func cells(_ table: MLDataTable) -> [[MLDataValue]] {
        table.columnNames.map { name in (0..<table.size.rows).map { table[name][$0] } }
    }

    /// Bit patterns, so that −0 and +0 (which `==` on `MLDataValue` may equate) count as different.
    func doubleBits(_ table: MLDataTable) -> [[UInt64]] {
        table.columnNames.compactMap { name in
            table[name].doubles.map { column in (0..<column.count).map { column.element(at: $0)?.bitPattern ?? 1 } }
        }
    }

    func expectSame(_ text: String, options: MLDataTable.ParsingOptions = .init(), sourceLocation: SourceLocation = #_sourceLocation) throws {
        let expected = try whole(text, options: options)
        for chunk in [16, 23, 64, 257, 1 << 20] {
            for spans in [1, 7, 1 << 20] {
                let got = try #require(try streamed(text, chunk: chunk, spans: spans, options: options),
                                       "chunk \(chunk): left to the whole-file reader", sourceLocation: sourceLocation)
                #expect(Array(got.columnNames) == Array(expected.columnNames), sourceLocation: sourceLocation)
                #expect(got.columnTypes == expected.columnTypes, "chunk \(chunk), spans \(spans)", sourceLocation: sourceLocation)
                #expect(cells(got) == cells(expected), "chunk \(chunk), spans \(spans)", sourceLocation: sourceLocation)
                #expect(doubleBits(got) == doubleBits(expected), "chunk \(chunk), spans \(spans)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func streamedTablesEqualTheWholeFileReadersForEveryBufferSize() throws {
        // Quoted line breaks, delimiters and doubled quotes; missing values; a byte order mark.
        try expectSame("\u{FEFF}id,text,x\n1,a,0.5\n2,\"b, \"\"c\"\"\",NA\n3,\"three\nlines\nhere\",-0\n4,,1e-3\n5,\"x,\ny\",7\n")
        // Windows line ends, comments, blank lines, no final line end.
        var options = MLDataTable.ParsingOptions()
        options.comment = "#"
        try expectSame("a;b\r\n# note\r\n1;2.25\r\n\r\n3;4 # trailing\r\n  \r\n5;6", options: {
            var o = options
            o.delimiter = ";"
            return o
        }())
        // Without a header, with selectColumns, maxRows and skipRows.
        try expectSame("skip me\nx,1,2\ny,3,4\nz,5,6\nw,7,8\n",
                       options: MLDataTable.ParsingOptions(containsHeader: false, selectColumns: ["X1", "X3"], maxRows: 3, skipRows: 1))
        // Forced types.
        var forced = MLDataTable.ParsingOptions()
        forced.columnTypes = ["a": .double, "b": .string]
        try expectSame("a,b\n1,2\n3,4\n5,x\n", options: forced)
        // A header only; an empty selection of rows.
        try expectSame("a,b,c\n")
        try expectSame("a,b\n1,2\n", options: MLDataTable.ParsingOptions(maxRows: 0))
    }

    @Test func columnsThatWidenInALaterBlockAreReadAgainWithTheWiderKind() throws {
        // Integers then decimals (the integers kept as doubles), integers then text (the earlier
        // texts as written), integers that a double cannot hold exactly then decimals (read again
        // from their texts: −0 and 2^53 + 1), and a column that is text from its first row.
        var rows = ["n,text,exact,label"]
        for r in 0..<40 {
            let n = r == 30 ? "2.5" : "\(r)"
            let text = r == 35 ? "thirty-five" : "00\(r)"
            let exact = r == 0 ? "-0" : r == 1 ? "9007199254740993" : r == 33 ? "0.25" : "\(r * 3)"
            rows.append("\(n),\(text),\(exact),L\(r % 3)")
        }
        let text = rows.joined(separator: "\n") + "\n"
        try expectSame(text)
        let table = try #require(try streamed(text, chunk: 40, spans: 8))
        #expect(table.columnTypes == ["n": .double, "text": .string, "exact": .double, "label": .string])
        #expect(table["text"][0] == .string("000") && table["exact"][0].doubleValue?.sign == .minus)
        #expect(table["exact"][1] == .double(9_007_199_254_740_992))
    }

    @Test func thousandsOfMixedLinesReadAsTheWholeFileReaderReadsThem() throws {
        // Blank lines, comments, Windows line ends and spaces anywhere; a few quoted line breaks late.
        var random = SystemRandomNumberGenerator()
        var lines = ["id , x,y ,label"]
        for r in 0..<3_000 {
            switch Int.random(in: 0..<40, using: &random) {
            case 0: lines.append("")
            case 1: lines.append("   ")
            case 2: lines.append("# a comment, with a comma")
            case 3 where r > 2_000: lines.append("\(r),\"1.5\",\"two\nlines\",q")
            default:
                let x = Double.random(in: -1e3...1e3, using: &random)
                lines.append("\(r), \(x),\(Int.random(in: -9...9, using: &random)) ,L\(r % 7)\(Bool.random(using: &random) ? "\r" : "")")
            }
        }
        var options = MLDataTable.ParsingOptions()
        options.comment = "#"
        try expectSame(lines.joined(separator: "\n"), options: options)
        try expectSame(lines.joined(separator: "\n") + "\n", options: options)
        // A short row far into the file: left to the whole-file reader, as every error.
        var short = lines
        short[2_500] = "1,2"
        #expect(try streamed(short.joined(separator: "\n"), chunk: 512, spans: 64, options: options) == nil)
    }

    @Test func aFieldLongerThanTheBufferGrowsIt() throws {
        let long = String(repeating: "y", count: 5_000)
        try expectSame("a,b\n1,\"\(long)\nstill \(long)\"\n2,\(long)\n3,z\n")
    }

    @Test func errorsInTheFileAreReportedAsTheWholeFileReaderReportsThem() throws {
        // The streaming reader leaves every bad file to the whole-file reader, whose messages name the line.
        let bad = [
            "a,b,c\n1,2,3\n4,5,6\n7,8,9\n\"x\ny\",1,2\n10,11\n",  // too few fields, line 7
            "a,b\n1,2\n3,\"open\n4,5\n",  // a quote never closed
            "a,b\n1,2\n3,\"x\"y\n",  // text after a closing quote
        ]
        for text in bad {
            #expect(try streamed(text, chunk: 16) == nil)
            // The same message after the file's name (the whole-file reader here reads "s.csv", the file a temporary path).
            let expected = try #require(thrownMessage { try whole(text) })
            let viaFile = try #require(thrownMessage { try readTable("s.csv", text) })
            #expect(expected.contains("s.csv: line ") && viaFile.contains("/s.csv: line "))
            #expect(expected.components(separatedBy: "s.csv: ").last == viaFile.components(separatedBy: "s.csv: ").last, "\(viaFile)")
        }
        var forced = MLDataTable.ParsingOptions()
        forced.columnTypes = ["b": .int]
        let text = "a,b\n" + (0..<50).map { "\($0),\($0)" }.joined(separator: "\n") + "\n51,8.5\n"
        #expect(try streamed(text, chunk: 32, options: forced) == nil)
        let message = thrownMessage { try readTable("s.csv", text, options: forced) }
        #expect(message?.hasSuffix("s.csv: line 52, column \"b\": value \"8.5\" is not an integer") == true, "\(message ?? "no error")")
        // A missing file: the whole-file reader's message.
        #expect(thrownMessage { try MLDataTable(contentsOf: URL(fileURLWithPath: "/nonexistent/x.csv")) }?.contains("cannot read the file") == true)
        // What is not a regular file (a folder here; a pipe, which could not be read twice) is the whole-file reader's.
        try withTemporaryDirectory { folder in
            let reader = try CreateMLError.reading { try CSVReader(location: folder.path, options: CSVOptions()) }
            #expect(CSVStreamReader(path: folder.path, reader: reader, columnTypes: [:]).read() == nil)
        }
    }

    // MARK: Decimals

    /// `strtod`'s value of `text`, as Swift's `Double(String)` reads decimals.
    func strtodValue(_ text: String) -> Double {
        text.withCString { strtod($0, nil) }
    }

    func fast(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { CSVDecimal.parse($0.baseAddress!, count: $0.count) }
    }

    @Test func theDecimalParserGivesStrtodsBitsOrDeclines() throws {
        var random = SystemRandomNumberGenerator()
        var parsed = 0
        func check(_ text: String) {
            guard let value = fast(text) else { return }
            parsed += 1
            let expected = strtodValue(text)
            #expect(value.bitPattern == expected.bitPattern, "\(text): \(value) against strtod's \(expected)")
        }
        let edges = ["0", "-0", "+0", "0.0", "-0.000", "0e10", "1", "-1", "9007199254740992", "9007199254740993",
                     "9007199254740991", "18014398509481984", "1e22", "1e23", "1e-22", "1e-23", "123456789012345678e-5",
                     "1234567890123456789", "12345678901234567890", "0.1", "0.2", "0.3", "3.", ".5", "-.5", "+1.5e+3",
                     "1E5", "4.35", "2.2250738585072014e-308", "1.7976931348623157e308", "5e-324", "0.000001",
                     "00000000000000000000000001.5", "1.00000000000000000000000", "8.98846567431158e307",
                     "4503599627370497.5", "9.999999999999999e22", "0.30000000000000004"]
        for text in edges { check(text) }
        // Random decimals of every shape: digits before and after the point, exponents, signs, zeros.
        for _ in 0..<200_000 {
            var text = ["", "-", "+"][Int.random(in: 0..<3, using: &random)]
            let integerDigits = Int.random(in: 0...12, using: &random)
            let fractionDigits = Int.random(in: 0...12, using: &random)
            for i in 0..<integerDigits { text += String(i == 0 && Bool.random(using: &random) ? 0 : Int.random(in: 0...9, using: &random)) }
            if fractionDigits > 0 || Bool.random(using: &random) { text += "." }
            for _ in 0..<fractionDigits { text += String(Int.random(in: 0...9, using: &random)) }
            if Int.random(in: 0..<3, using: &random) == 0 {
                text += ["e", "E"][Int.random(in: 0..<2, using: &random)] + ["", "-", "+"][Int.random(in: 0..<3, using: &random)]
                text += String(Int.random(in: 0...30, using: &random))
            }
            check(text)
        }
        // Doubles printed as %.9g (float32 data, as the benchmarks write it) and %.17g.
        for _ in 0..<100_000 {
            let value = Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &random))
            guard value.isFinite else { continue }
            let scaled = Double.random(in: -1000...1000, using: &random)
            for format in ["%.9g", "%.17g", "%.6e", "%g"] {
                check(String(format: format, value))
                check(String(format: format, scaled))
                check(String(format: format, Double(Float(scaled))))
            }
        }
        #expect(parsed > 300_000)
        // Not decimals: left to the full reader.
        for text in ["", "-", ".", "e5", "1e", "1e+", "nan", "inf", "1.5x", "0x1p3", "1,5", " 1", "1 ", "--1", "1..2"] {
            #expect(fast(text) == nil, "\(text)")
        }
    }

    @Test func fastDoubleEqualsParseDoubleOnFields() throws {
        let reader = try CSVReader(location: "f.csv", options: CSVOptions())
        var random = SystemRandomNumberGenerator()
        let alphabet = Array("0123456789.-+eE naiNf".utf8)
        var texts = ["1.5", " 2.5 ", "\t-3e2\t", "NaN", "inf", "-Infinity", "1e400", "-1e-400", "0x10", "12abc", "",
                     String(repeating: "0", count: 450) + "1", "1" + String(repeating: "0", count: 30)]
        for _ in 0..<50_000 {
            texts.append(String(decoding: (0..<Int.random(in: 1...10, using: &random)).map { _ in alphabet.randomElement(using: &random)! },
                                as: UTF8.self))
        }
        for text in texts {
            let line = Array(("\(text),\n").utf8)
            try line.withUnsafeBufferPointer { bytes in
                var tokenizer = reader.tokenizer(bytes)
                var fields: [CSVReader.Span] = []
                _ = try tokenizer.nextRow(into: &fields)
                let span = fields[0]
                let a = reader.fastDouble(span, bytes), b = reader.parseDouble(span, bytes)
                #expect(a?.bitPattern == b?.bitPattern, "\(text.debugDescription): \(String(describing: a)) against \(String(describing: b))")
            }
        }
    }
}
