import Foundation
@testable import OpenCreateML
import Testing
import _OpenCoreMLFormats

/// The CSV table reader types each column a block of rows at a time; these tests use blocks of a
/// few rows so that a column's kind changes, a quoted line break or an error falls in a later block.
@Suite struct DataTableCSVBlockTests {
    func read(_ text: String, blockRows: Int = 3, options: MLDataTable.ParsingOptions = .init()) throws -> MLDataTable {
        let reader = try CreateMLError.reading { try CSVReader(location: "b.csv", options: options.csvOptions) }
        return try Array(text.utf8).withUnsafeBufferPointer {
            try reader.table($0, columnTypes: options.columnTypes, blockRows: blockRows)
        }
    }

    /// Every cell, column by column, for comparing two tables.
    func cells(_ table: MLDataTable) -> [[MLDataValue]] {
        table.columnNames.map { name in (0..<table.size.rows).map { table[name][$0] } }
    }

    /// The same table whatever the block size (one block holding every row is how the reader
    /// behaved before it read blocks).
    func expectSameForEveryBlockSize(_ text: String, options: MLDataTable.ParsingOptions = .init()) throws {
        let whole = try read(text, blockRows: 1 << 20, options: options)
        for blockRows in 1...5 {
            let blocks = try read(text, blockRows: blockRows, options: options)
            #expect(Array(blocks.columnNames) == Array(whole.columnNames))
            #expect(blocks.columnTypes == whole.columnTypes, "blocks of \(blockRows)")
            #expect(cells(blocks) == cells(whole), "blocks of \(blockRows)")
        }
    }

    @Test func aColumnOfIntegersInTheFirstBlockAndDecimalsLaterIsADoubleColumn() throws {
        let table = try read("a,b\n1,1\n2,2\n3,3\n4,4\n5.5,5\n")
        #expect(table.columnTypes == ["a": .double, "b": .int])
        #expect(Array(table["a"].doubles!) == [1, 2, 3, 4, 5.5])
        // "-0" is the integer 0 but the double -0.0; 2^53 + 1 reads as the double 2^53 (ties to even).
        let exact = try read("a\n-0\n9007199254740993\n1\n0.5\n")
        let doubles = Array(exact["a"].doubles!)
        #expect(doubles.count == 4 && doubles[0] == 0 && doubles[0].sign == .minus)
        #expect(doubles[1] == 9_007_199_254_740_992 && doubles[2] == 1 && doubles[3] == 0.5)
        try expectSameForEveryBlockSize("a\n-0\n9007199254740993\n1\n0.5\n")
    }

    @Test func aColumnThatTurnsToTextLaterKeepsTheEarlierValuesTextsAsWritten() throws {
        let text = "code,x,n\n007,1.50,1\n,2,2\n12,+3,3\n4,NA,4\nx7,4.0,5\n5,y,6\n"
        let table = try read(text)
        #expect(table.columnTypes == ["code": .string, "x": .string, "n": .int])
        let code = table["code"], x = table["x"]
        #expect((0..<6).map { code[$0] } == [.string("007"), .invalid, .string("12"), .string("4"), .string("x7"), .string("5")])
        #expect((0..<6).map { x[$0] } == [.string("1.50"), .string("2"), .string("+3"), .invalid, .string("4.0"), .string("y")])
        try expectSameForEveryBlockSize(text)
    }

    @Test func missingValuesAcrossBlocksStayMissing() throws {
        let text = "x,y,z\n1,,\n,2.5,NA\n3,NA,\nNA,4,\n5,,\n,6,\n7,,NA\n"
        let table = try read(text)
        #expect(table.columnTypes == ["x": .int, "y": .double, "z": .string])  // z has no value at all
        #expect((0..<7).map { table["x"][$0] } == [.int(1), .invalid, .int(3), .invalid, .int(5), .invalid, .int(7)])
        #expect((0..<7).map { table["y"][$0] } == [.invalid, .double(2.5), .invalid, .double(4), .invalid, .double(6), .invalid])
        #expect((0..<7).allSatisfy { table["z"][$0] == .invalid })
        try expectSameForEveryBlockSize(text)
    }

    @Test func quotedLineBreaksAcrossABlockBoundary() throws {
        let text = "id,text\n1,a\n2,b\n3,\"three\nlines\nhere\"\n4,\"x,\ny\"\n5,e\n"
        let table = try read(text)
        #expect(Array(table["id"].ints!) == [1, 2, 3, 4, 5])
        #expect(Array(table["text"].strings!) == ["a", "b", "three\nlines\nhere", "x,\ny", "e"])
        try expectSameForEveryBlockSize(text)
        // Without a header, with selectColumns and maxRows.
        var options = MLDataTable.ParsingOptions(containsHeader: false, selectColumns: ["X2"], maxRows: 4)
        options.missingValues = ["NA"]
        try expectSameForEveryBlockSize(text, options: options)
        let limited = try read(text, options: options)
        #expect(Array(limited["X2"].strings!) == ["text", "a", "b", "three\nlines\nhere"])
    }

    @Test func errorsInALaterBlockNameTheRightLine() throws {
        // Rows on lines 2, 3, 4, 5–6 (a quoted line break); the short row is line 7, in the second block.
        let short = "a,b,c\n1,2,3\n4,5,6\n7,8,9\n\"x\ny\",1,2\n10,11\n"
        for blockRows in [1, 2, 3, 100] {
            let message = thrownMessage { try read(short, blockRows: blockRows) }
            #expect(message?.hasSuffix("b.csv: line 7, column \"c\": expected 3 fields, found 2") == true, "\(message ?? "no error")")
        }
        // A value that does not fit a forced type, in a later block.
        var options = MLDataTable.ParsingOptions()
        options.columnTypes = ["b": .int]
        let forced = thrownMessage { try read("a,b\n1,2\n3,4\n5,6\n7,8.5\n", options: options) }
        #expect(forced?.hasSuffix("b.csv: line 5, column \"b\": value \"8.5\" is not an integer") == true, "\(forced ?? "no error")")
        // A badly formed row later in the file is reported before a bad value earlier, as when the
        // whole file was scanned before any column was typed.
        let both = thrownMessage { try read("a,b\n1,x\n3,4\n5,6\n7\n", options: options) }
        #expect(both?.hasSuffix("b.csv: line 5, column \"b\": expected 2 fields, found 1") == true, "\(both ?? "no error")")
    }
}
